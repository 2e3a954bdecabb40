# Two commands for a fresh machine with Python 3.10+ and git:
#   make lab    install everything into .venv and open JupyterLab on the first chapter
#   make test   install everything into .venv and run the test suite, without the browser tests
#   make check  the whole suite, browser tests in JupyterLab and Chromium included: what CI runs
#   make site   build the offline site and slides into site/ (needs npm once, for reveal.js)
#   make student  write the student edition (no solutions, no outputs) into student/
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# PyTorch's CPU build. Where pip would pick a CUDA build (plain PyPI on Linux), pass
# TORCH_INDEX=https://download.pytorch.org/whl/cpu to fetch the small CPU wheel instead.
TORCH ?= torch==2.13.0
TORCH_INDEX ?=

.PHONY: lab test check site student install clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@

install: $(BIN)/.installed

# JupyterLab refuses to run as root (containers, some cloud machines) unless told it may
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: install
	$(BIN)/jupyter lab $(ROOT_FLAG) notebooks/00_start_here.ipynb

# nbval runs every notebook once; the tests that read outputs share that run (tests/conftest.py).
# make test spreads the tests over one worker per usable CPU (pytest-xdist); make check runs on one process
test: install
	$(BIN)/python -m pytest --ignore=tests/browser -n auto

# make check also runs the student edition under nbval, every exercise unfilled
check: install student
	$(BIN)/python -m pytest tests notebooks student

# the student edition, written from the chapters in notebooks/ (the one source)
student: install
	$(BIN)/python -m tools.student

site: install
	$(BIN)/python tools/build_site.py

clean:
	rm -rf $(VENV)
