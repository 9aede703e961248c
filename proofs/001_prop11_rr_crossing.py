"""001 Prop. 11 via App. B.1: after composition no single ordered pair of datasets realises
the add-remove privacy curve -- the add and remove curves of Poisson-subsampled randomized
response cross.  Everything here is an exact rational.

Mechanism (001 App. B.1): output b = [batch contains a 1] w.p. p, 1 - b w.p. 1 - p;
D = all zeros, D' = D plus one 1, Poisson rate gamma.  One step:
M(D) = {0: p, 1: 1 - p},  M(D') = (1 - gamma) M(D) + gamma {0: 1 - p, 1: p}.
add = H(M(D)^k || M(D')^k), remove = H(M(D')^k || M(D)^k).

1. k = 2, p = 3/4, gamma = 1/2: the four rationals printed in App. B.1, by enumerating the
   4 outcomes here and from refacct's catalogue (poisson_subsampled), and add > remove at
   alpha = 4/3, add < remove at alpha = 2.
2. k = 3, p = 4/5, gamma = 1/3 (found by an exact search over p, gamma in {2/3, 3/4, 4/5} x
   {1/3, 1/2}): add > remove at alpha = 5/4, add < remove at alpha = 2, by enumerating the
   8 outcomes here and from the catalogue.
3. For both, the crossing point alpha* itself: H_alpha(add) - H_alpha(remove) is piecewise
   linear in alpha (A - alpha B on each piece, refacct's exact form), so a secant step on the
   exact forms lands on the crossing; H is then evaluated exactly at that rational alpha* and
   the two curves are *equal* there (eps* = ln alpha*).
4. Contrast (001 Sec. 5): for k = 1 remove >= add at every alpha in {1, 9/8, ..., 4}.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

from _common import claim, done
from refacct import hockey_stick
from refacct.mechanisms import poisson_subsampled, randomized_response


def enumerated(p: F, gamma: F, k: int, alpha: F):
    """(add, remove) = (H_alpha(M(D)^k || M(D')^k), H_alpha(M(D')^k || M(D)^k)) by summing
    (x - alpha y)_+ over the 2^k output sequences."""
    P = {0: p, 1: 1 - p}
    Q = {b: (1 - gamma) * P[b] + gamma * P[1 - b] for b in (0, 1)}

    def prob(dist, seq):
        out = F(1)
        for b in seq:
            out *= dist[b]
        return out

    seqs = list(itertools.product((0, 1), repeat=k))
    add = sum(max(prob(P, s) - alpha * prob(Q, s), F(0)) for s in seqs)
    remove = sum(max(prob(Q, s) - alpha * prob(P, s), F(0)) for s in seqs)
    return add, remove


def terms(mech, alpha: F):
    r = dict(hockey_stick(mech, alpha).terms)
    return r["add"], r["remove"]


def crossing(mech, lo: F, hi: F) -> F:
    """The exact alpha* in (lo, hi) with H_add = H_remove (add - remove > 0 at lo, < 0 at
    hi): secant steps on the exact forms A - alpha B, each landing in a new linear piece."""
    for _ in range(100):
        add, remove = terms(mech, lo)
        (a1, b1), (a2, b2) = add.exact_form, remove.exact_form
        root = (a1 - a2) / (b1 - b2)
        add, remove = terms(mech, root)
        gap = add.exact - remove.exact
        if gap == 0:
            return root
        lo, hi = (root, hi) if gap > 0 else (lo, root)
    raise ArithmeticError("no crossing found")


def case(p: str, gamma: str, k: int, above: F, below: F, printed=None) -> None:
    p, gamma = F(p), F(gamma)
    mech = poisson_subsampled(randomized_response(p), gamma, "add-remove", k)
    name = f"randomized response p = {p}, Poisson gamma = {gamma}, k = {k}"
    for alpha, sign in ((above, 1), (below, -1)):
        add, remove = terms(mech, alpha)
        mine = enumerated(p, gamma, k, alpha)
        agree = (add.exact, remove.exact) == mine
        if printed:
            agree = agree and mine == printed[alpha]
        order = ">" if sign > 0 else "<"
        claim(agree and (add.exact - remove.exact) * sign > 0,
              f"{name}: H_{alpha}(add) = {add.exact} {order} H_{alpha}(remove) = {remove.exact}",
              "exact rationals, refacct's catalogue and enumeration of the 2^k outcomes"
              + (" and the numbers printed in 001 App. B.1" if printed else ""))
    star = crossing(mech, above, below)
    add, remove = terms(mech, star)
    claim(add.exact == remove.exact and above < star < below,
          f"{name}: the curves cross at alpha* = {star} (eps* = ln({star})), where "
          f"H(add) = H(remove) = {add.exact}",
          "exact: secant on the exact forms A - alpha B, then H evaluated exactly at alpha*")


def one_step_remove_dominates() -> None:
    mech = poisson_subsampled(randomized_response("3/4"), "1/2", "add-remove", 1)
    alphas = [F(i, 8) for i in range(8, 33)]
    ok = all(a.exact <= r.exact for a, r in (terms(mech, x) for x in alphas))
    claim(ok, "k = 1, p = 3/4, gamma = 1/2: H_alpha(remove) >= H_alpha(add) for alpha = 1, "
          "9/8, ..., 4 (no crossing without composition)", "exact rationals on the grid")


if __name__ == "__main__":
    printed = {F(4, 3): (F(11, 48), F(1, 6)), F(2): (F(1, 16), F(1, 8))}
    case("3/4", "1/2", 2, F(4, 3), F(2), printed)
    case("4/5", "1/3", 3, F(5, 4), F(2))
    one_step_remove_dominates()
    done()
