// qstrs specific to this port (collected automatically from the sources)
