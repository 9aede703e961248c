"""refacct.accountants.OpacusAccountant in a real (tiny) Opacus training loop on the CPU."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("opacus")

from opacus import PrivacyEngine  # noqa: E402
from opacus.accountants import RDPAccountant  # noqa: E402

import refacct  # noqa: E402
from refacct.accountants import OpacusAccountant  # noqa: E402
from refacct.mechanisms import build, gaussian  # noqa: E402


def test_a_real_opacus_training_loop():
    """Two epochs of DP-SGD (64 records, expected batch 16: Poisson rate 1/4, noise 1, 8
    steps) with refacct as the PrivacyEngine's accountant.  The history is Opacus's; the
    proven eps(1e-5) lies below Opacus's own RDP bound for the same history (RDP is an upper
    bound on the truth, and the bracket's lower end is below the truth); the float returned
    is the bracket's upper end rounded up; the same query through refacct.epsilon agrees."""
    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
    loader = torch.utils.data.DataLoader(data, batch_size=16)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = PrivacyEngine()
    engine.accountant = OpacusAccountant()
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.0,
        max_grad_norm=1.0)
    for _ in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
    acc = engine.accountant
    assert acc.history == [(1.0, 0.25, 8)] and len(acc) == 8
    eps = engine.get_epsilon(1e-5)
    result = acc.epsilon_result(1e-5)
    assert result.proven and result.upper <= eps < result.upper + 1e-12
    rdp = RDPAccountant()
    rdp.history = list(acc.history)
    assert result.lower <= rdp.get_epsilon(1e-5)
    entry = build(gaussian(1), "poisson", "add-remove", q="1/4")
    direct = refacct.epsilon(entry, "1e-5", steps=8)
    assert (direct.lower, direct.upper) == (result.lower, result.upper)


def test_no_steps_and_non_private_steps():
    acc = OpacusAccountant()
    assert acc.get_epsilon(1e-5) == 0 and len(acc) == 0
    acc.step(noise_multiplier=0.0, sample_rate=0.5)
    assert acc.get_epsilon(1e-5) == float("inf")
