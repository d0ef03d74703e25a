"""Bridges between the connect4 protocol and the places Connect-4 players
are written in Python.

- ``connect4-policy TARGET`` serves a course ``Policy`` (``mount()``,
  ``act(board)``) as a protocol engine (:mod:`c4bridge.policy`);
- ``connect4-kaggle FILE.py`` serves a Kaggle ConnectX ``agent(observation,
  configuration)`` as a protocol engine (:mod:`c4bridge.kaggle`).

The importable name is ``c4bridge``, not ``connect4``: that is the course's
own package, which student policies import.
"""

__version__ = "0.1.0"
