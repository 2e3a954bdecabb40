# Two commands for a fresh machine with Python 3.10+ and git:
#   make lab         install everything into .venv and open JupyterLab on the first chapter (the learner edition)
#   make test        install everything into .venv and run the test suite, without the browser and system tests
#   make check       the whole suite, browser tests in JupyterLab and Chromium included, and the system tests (a real
#                    JupyterHub, a wheel in a fresh venv; npm once): what CI runs
#   make site        build the offline site and slides into site/ (needs npm once, for reveal.js)
#   make instructor  write the instructor edition (speaker notes and solutions shown) into instructor/
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# PyTorch's CPU build. Where pip would pick a CUDA build (plain PyPI on Linux), pass
# TORCH_INDEX=https://download.pytorch.org/whl/cpu to fetch the small CPU wheel instead.
TORCH ?= torch==2.13.0
TORCH_INDEX ?=

.PHONY: lab test check site instructor install clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@

install: $(BIN)/.installed

# JupyterLab refuses to run as root (containers, some cloud machines) unless told it may
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# notebooks/ is the learner edition: what a learner opens
lab: install
	$(BIN)/jupyter lab $(ROOT_FLAG) notebooks/00_start_here.ipynb

# make test: one pytest-xdist worker per CPU (a notebook's cells stay on one worker), one torch thread per worker
# and kernel; make check: everything, on one process (CI). Both from the repository root, as `python -m pytest`.
test: install
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest --ignore=tests/browser --ignore=tests/system -n auto

check: install
	$(BIN)/python -m pytest

instructor: install
	$(BIN)/python -m tools.editions instructor

site: install
	$(BIN)/python -m tools.build_site

clean:
	rm -rf $(VENV)
