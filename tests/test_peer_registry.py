"""A peer is one module of refacct.validation.adapters: it declares ``PEER`` and
``accountants(knobs)``; registration, importability, the install hint and the checking of
knobs are the base's, the same for every peer."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from refacct.validation import adapters
from refacct.validation.adapters import PEERS, Peer, available_peers, peer_module, resolve

ADAPTERS = Path(adapters.__file__).parent


def test_every_adapter_module_is_a_registered_peer():
    modules = sorted(p.stem for p in ADAPTERS.glob("*.py") if not p.stem.startswith("_"))
    assert list(PEERS) == modules
    assert {"dp_accounting", "prv_accountant", "opacus", "riskcal"} <= set(PEERS)
    for peer in PEERS:
        module = peer_module(peer)
        assert isinstance(module.PEER, Peer)
        # the peer's name is its import name, in lower case (pld-accounting imports as
        # PLD_accounting)
        assert module.PEER.package.lower() == peer
        assert all(isinstance(v, float) for v in module.PEER.knobs.values())
        for name in ("accountants", "VOCABULARY", "features", "reproducer"):
            assert hasattr(module, name), (peer, name)


def test_a_missing_peer_names_how_to_install_it(monkeypatch):
    module = peer_module("autodp")
    missing = dataclasses.replace(module.PEER, package="no_such_package_for_refacct")
    monkeypatch.setattr(module, "PEER", missing)
    assert "autodp" not in available_peers()
    with pytest.raises(ImportError,
                       match=r"autodp is not installed: pip install 'refacct\[more-peers\]'"):
        resolve("autodp")


@pytest.mark.parametrize("peer", [p for p in PEERS if not peer_module(p).PEER.knobs])
def test_a_knob_for_a_peer_without_knobs_is_bad_input(peer):
    """Bad input (a ValueError naming the knob), as for the peers that have knobs, not a
    TypeError from the adapter's signature."""
    if not peer_module(peer).PEER.importable():
        pytest.skip(f"{peer} is not installed")
    with pytest.raises(ValueError, match="unknown knob.*nx.*known: none"):
        resolve(peer, {f"{peer}.nx": "10"})


def test_a_peer_gets_its_knobs_checked_and_as_floats():
    if not peer_module("prv_accountant").PEER.importable():
        pytest.skip("prv_accountant is not installed")
    with pytest.raises(ValueError, match="unknown knob.*bogus.*known: delta_error"):
        resolve("prv_accountant", {"prv_accountant.bogus": "1"})
    chosen = resolve("prv_accountant.upper", {"prv_accountant.eps_error": "0.5"})
    assert chosen[0].knobs["eps_error"] == 0.5
