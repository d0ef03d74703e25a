#!/usr/bin/env python3
"""The reference numbers crates/league/src/rating.rs is pinned against:
PyPI's openskill (`pip install openskill`), BradleyTerryFull with its
defaults, on the three games the Rust test plays."""

from openskill.models import BradleyTerryFull

m = BradleyTerryFull()
for label, a, b, ranks in [
    ("a new player beats a new player", m.rating(), m.rating(), None),
    ("two new players draw", m.rating(), m.rating(), [1, 1]),
    ("mu 20 sigma 6 beats mu 30 sigma 4", m.rating(mu=30, sigma=4), m.rating(mu=20, sigma=6), [2, 1]),
]:
    [[a2], [b2]] = m.rate([[a], [b]], ranks=ranks)
    print(f"{label}: a {a2.mu!r} {a2.sigma!r}, b {b2.mu!r} {b2.sigma!r}")
