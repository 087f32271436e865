"""Fixtures of the hcl package's tests: the devices to run on and seeded random generators (the seed is printed, so a
failure can be replayed with HCL_PYTEST_SEED)."""

import os
import random

import numpy as np
import pytest

import hcl


def _selectors():
    """HCL_PYTEST_DEVICES (comma list of selectors), else every device of every available backend."""
    env = os.environ.get("HCL_PYTEST_DEVICES")
    if env:
        return [s.strip() for s in env.split(",") if s.strip()]
    return [f"{d['backend']}:{d['index']}" for d in hcl.devices()]


SELECTORS = _selectors()
_opened = {}


def open_device(sel):
    """One opened device per selector for the whole session (opening PoCL or CUDA costs time)."""
    dev = _opened.get(sel)
    if dev is None or dev.released:
        dev = _opened[sel] = hcl.Device(sel)
    return dev


@pytest.fixture(params=SELECTORS)
def device(request):
    return open_device(request.param)


@pytest.fixture
def host():
    return open_device("host")


def dlpack_capable(dev):
    return dev.backend in ("host", "cuda", "hip")


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("HCL_PYTEST_SEED", random.randrange(1 << 31)))
    print(f"seed {seed} (HCL_PYTEST_SEED={seed} replays {request.node.name})")
    return np.random.default_rng(seed)


def pytest_report_header(config):
    return [f"hcl {hcl.version()}: devices {', '.join(SELECTORS)}"]
