"""Published figures shipped as data, with their source: MLPerf Tiny's closed-division results."""
