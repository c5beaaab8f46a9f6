# mcuroof: `make demo` sets everything up and runs the full suite on the emulated board;
# `make test` runs the tests. Both create .venv and install what is missing.
VENV ?= .venv
PY := $(VENV)/bin/python
APT_PACKAGES := qemu-system-arm firmware-microbit-micropython
# the labgrid farm tests serve boards' ptys over the network with ser2net: tests only
FARM_PACKAGES := ser2net
FIRMWARE_HEX := /usr/share/firmware-microbit-micropython/firmware.hex
# the qemu-m3/m7/m55 boards build their firmware (cached in ~/.cache/mcuroof/firmware): tests only
ARM_PACKAGES := gcc-arm-none-eabi libnewlib-arm-none-eabi
NEWLIB := /usr/lib/arm-none-eabi/newlib/libc_nano.a
# the qemu-rv32 board (QEMU virt, RV32IMAC) builds its firmware with Debian's RISC-V toolchain and
# picolibc, and runs in qemu-system-riscv32: tests only
RISCV_PACKAGES := gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc
# the emulated Pico (rp2040js-pico): Node 18+ runs the npm package rp2040js, pinned by
# firmware/rp2040js/package-lock.json and installed (npm ci) into ~/.cache/mcuroof/node
NODE_PACKAGES := nodejs npm
# the report.html tests load it in a real browser: tests only
BROWSER_PACKAGES := chromium chromium-driver

.PHONY: setup sysdeps farmdeps armdeps rvdeps nodedeps browserdeps demo examples test lint mutate mutmut zoo clean

# the tool alone (what a user needs for `make demo`); the tests add their extras below
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

# the test extras (pytest, selenium, ruff), the farm's labgrid and the NPU's Vela
$(VENV)/.test-installed: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[test,farm,npu]'
	touch $@

setup: $(VENV)/.installed sysdeps

sysdeps:
	@if command -v qemu-system-arm >/dev/null && [ -f $(FIRMWARE_HEX) ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	else \
		echo "The emulated board needs: sudo apt-get install $(APT_PACKAGES)"; exit 1; \
	fi

farmdeps:
	@if [ -x /usr/sbin/ser2net ]; then echo "farmdeps: ser2net is installed"; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(FARM_PACKAGES) >/dev/null; \
	else \
		echo "The farm tests need: sudo apt-get install $(FARM_PACKAGES) (they are skipped without)"; \
	fi

armdeps:
	@if command -v arm-none-eabi-gcc >/dev/null && [ -f $(NEWLIB) ]; then echo "armdeps: $(ARM_PACKAGES) are installed"; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(ARM_PACKAGES) >/dev/null; \
	else \
		echo "The qemu-m3/m7/m55 boards need: sudo apt-get install $(ARM_PACKAGES)"; exit 1; \
	fi

rvdeps:
	@if command -v riscv64-unknown-elf-gcc >/dev/null && command -v qemu-system-riscv32 >/dev/null \
		&& [ -f "$$(riscv64-unknown-elf-gcc -print-file-name=picolibc.specs)" ]; then echo "rvdeps: $(RISCV_PACKAGES) are installed"; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(RISCV_PACKAGES) >/dev/null; \
	else \
		echo "The qemu-rv32 board needs: sudo apt-get install $(RISCV_PACKAGES)"; exit 1; \
	fi

nodedeps: $(VENV)/.installed
	@if command -v node >/dev/null && command -v npm >/dev/null; then echo "nodedeps: node and npm are installed"; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(NODE_PACKAGES) >/dev/null; \
	else \
		echo "The rp2040js-pico board needs: sudo apt-get install $(NODE_PACKAGES)"; exit 1; \
	fi
	$(PY) -c "from mcuroof.links import rp2040js; print('rp2040js:', rp2040js.ensure_package())"

browserdeps:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then echo "browserdeps: $(BROWSER_PACKAGES) are installed"; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null; \
	else \
		echo "The report.html tests need: sudo apt-get install $(BROWSER_PACKAGES) (they are skipped without)"; \
	fi

demo: setup
	$(VENV)/bin/mcuroof run --board qemu-microbit --model kws-dscnn -o out
	@echo "plot: out/roofline.png, interactive report: out/report.html"

# examples/*.json and the README's demo picture, measured again by today's code (a few minutes):
# tests/unit/test_examples.py fails when today's analysis would read them otherwise
EXAMPLES := build/examples
examples: setup
	$(VENV)/bin/mcuroof run --board qemu-microbit --model kws-dscnn -o $(EXAMPLES)/kws-microbit --force
	cp $(EXAMPLES)/kws-microbit/results.json examples/kws-microbit.json
	cp $(EXAMPLES)/kws-microbit/roofline.png docs/img/demo-roofline-qemu-microbit.png
	$(VENV)/bin/mcuroof run --board unix --model vww-mobilenet -o $(EXAMPLES)/vww-unix --force
	cp $(EXAMPLES)/vww-unix/results.json examples/vww-unix.json

# two workers (pytest-xdist), each test file on one of them (--dist loadfile: a module's shared
# board run is made once); every emulator is a process of its own, the firmware caches are locked
TEST_WORKERS ?= 2
test: setup $(VENV)/.test-installed farmdeps armdeps rvdeps nodedeps browserdeps lint
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile

# ruff: lint and format check (pyproject.toml [tool.ruff]); `$(VENV)/bin/ruff format host tests tools` fixes the format
lint: $(VENV)/.test-installed
	$(VENV)/bin/ruff check host tests tools
	$(VENV)/bin/ruff format --check host tests tools

# every one-line bug of tools/mutations.toml must make a fast test fail (a few minutes; not in CI)
mutate: $(VENV)/.test-installed
	$(PY) tools/mutate.py

# mutmut over the pure accounting modules: its score per module and the surviving mutants (not in CI)
mutmut: $(VENV)/.test-installed
	$(PY) -m pip install -q -e '.[mutation]'
	$(PY) tools/mutation_score.py --survivors

# the held-out networks of models/zoo (docs/zoo.md): written again, byte for byte
zoo: $(VENV)/.installed
	$(PY) tools/make_zoo.py

clean:
	rm -rf $(VENV) out build *.egg-info
