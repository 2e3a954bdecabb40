# Two commands for a fresh machine with Python 3.10+ and git:
#   make lab          install what a learner needs into .venv and open JupyterLab on the first chapter
#   make test         add the maintainers' tools to .venv and run the test suite, without the browser and system tests
#   make check        the whole suite, browser tests in JupyterLab and Chromium included, and the system tests (a real
#                     JupyterHub, a wheel in a fresh venv; npm once): what CI runs, before make colab-check
#   make colab-check  every chapter and the explorer under nbval at Colab's versions, in .venv-colab (make colab-env)
#   make site         build the offline site and slides into site/ (needs npm once, for reveal.js)
#   make instructor   write the instructor edition (speaker notes and solutions shown) into instructor/
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# PyTorch's CPU build, at the version environment.yml names: the one source of the torch version (Binder and a
# class's hub image read environment.yml; this Makefile, and so CI, read it here). Where pip would pick a CUDA build
# (plain PyPI on Linux), pass TORCH_INDEX=https://download.pytorch.org/whl/cpu to fetch the small CPU wheel instead.
TORCH_VERSION := $(shell sed -n 's/^ *- pytorch-cpu=\([0-9.]*\).*/\1/p' environment.yml)
TORCH ?= torch==$(TORCH_VERSION).*
TORCH_INDEX ?=

.PHONY: present lab test check colab-env colab-check site instructor install install-dev clean

# a learner's: PyTorch, the package and its [lab] extra (JupyterLab, RISE, nbgitpuller)
$(BIN)/.installed: pyproject.toml environment.yml
	@echo "Installing PyTorch, JupyterLab and the series into $(VENV): a few minutes the first time, quietly."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install --quiet -e ".[lab]"
	@# an editable install skips pyproject's data-files: link the RISE widget fix (labextension/) by hand
	mkdir -p $(VENV)/share/jupyter/labextensions
	ln -sfn $(CURDIR)/labextension $(VENV)/share/jupyter/labextensions/several-spotlights-rise
	@# JupyterLab's settings, as a hub's learners get them (deploy/overrides.json): no pop-up asking to fetch
	@# Jupyter's news over a chapter (or a projected one), work saved every 30 s
	mkdir -p $(VENV)/share/jupyter/lab/settings
	ln -sfn $(CURDIR)/deploy/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	touch $@

# the maintainers' on top: the [test] extra (tests, benchmarks, the site's and the hub's tools)
$(BIN)/.installed-dev: $(BIN)/.installed
	$(BIN)/python -m pip install --quiet -e ".[lab,test]"
	touch $@

install: $(BIN)/.installed
install-dev: $(BIN)/.installed-dev

# JupyterLab refuses to run as root (containers, some cloud machines) unless told it may
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root)

# notebooks/ is the learner edition: what a learner opens
lab: install
	$(BIN)/jupyter lab $(LAB_FLAGS) notebooks/00_start_here.ipynb

# the same, every kernel in presenter mode (projector sizes) from its first cell: helpers.plots.PRESENTER_VARIABLE
present: install
	SPOTLIGHTS_PRESENTER=1 $(BIN)/jupyter lab $(LAB_FLAGS) notebooks/00_start_here.ipynb

# make test: one pytest-xdist worker per CPU (a notebook's cells stay on one worker), one torch thread per worker
# and kernel; make check: everything, on one process (CI), with .venv-colab built first for the classic-notebook
# browser test. Both from the repository root, as `python -m pytest`.
test: install-dev
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest --ignore=tests/browser --ignore=tests/system -n auto

check: install-dev colab-env
	$(BIN)/python -m pytest

# Colab's versions of what a learner's kernel there uses (.ci/colab-versions.txt), in .venv-colab; the
# package is installed from this checkout as a regular (not editable) install, so the chapters read what a wheel
# ships. Colab runs Python 3.12 with torch 2.11: GitHub's workflow passes COLAB_PYTHON=python3.12
# COLAB_TORCH=torch==2.11.* TORCH_INDEX=https://download.pytorch.org/whl/cpu. Where PyPI is the only index, Python
# 3.12 has no CPU torch (PyPI's Linux torch pulls several GB of CUDA), so the defaults are PYTHON and TORCH.
COLAB_VENV := .venv-colab
COLAB_PYTHON ?= $(PYTHON)
COLAB_TORCH ?= $(TORCH)
COLAB_VERSIONS := .ci/colab-versions.txt

# pip resolves the pins and the package's own ranges together, so a range that shuts out Colab's version fails here
$(COLAB_VENV)/bin/.installed: pyproject.toml environment.yml $(COLAB_VERSIONS)
	rm -rf $(COLAB_VENV)
	$(COLAB_PYTHON) -m venv $(COLAB_VENV)
	$(COLAB_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(COLAB_VENV)/bin/python -m pip install --quiet "$(COLAB_TORCH)" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(COLAB_VENV)/bin/python -m pip install --quiet -r $(COLAB_VERSIONS) . nbval nbclient pytest
	touch $@

# idempotent: the venv is built once; the package is reinstalled from the checkout (seconds) every time
colab-env: $(COLAB_VENV)/bin/.installed
	rm -rf build  # setuptools would copy a stale build/lib into the wheel
	$(COLAB_VENV)/bin/python -m pip install --quiet --no-deps --force-reinstall .

colab-check: colab-env
	$(COLAB_VENV)/bin/python -m pytest notebooks

instructor: install
	$(BIN)/python -m tools.editions instructor

site: install-dev
	$(BIN)/python -m tools.build_site

clean:
	rm -rf $(VENV) $(COLAB_VENV)
