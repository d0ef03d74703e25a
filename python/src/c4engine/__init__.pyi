"""Type stubs of c4engine (see its docstring)."""

from typing import Any, Callable, Iterable, Literal, Optional, Sequence, TypedDict, Union

import numpy as np
from typing_extensions import final

Convention = Literal["course", "kaggle", "pettingzoo", "openspiel"]
OutcomeName = Literal["win", "draw", "loss"]
TieBreak = Literal["centre", "center", "left", "random"]

__version__: str
__all__ = [
    "LEVELS",
    "BatchSolver",
    "accuracy",
    "level",
    "Player",
    "Position",
    "PositionError",
    "Solver",
    "as_player",
    "gymnasium_env",
    "kaggle_agent",
    "openspiel_bot",
    "pettingzoo_env",
    "textarena_agent",
    "play_game",
    "play_match",
    "verdicts",
    "best_move",
    "outcome",
    "principal_variation",
    "score",
    "scores",
    "think",
]

# Players to practise against, weakest first: level(n) is LEVELS[n - 1].
LEVELS: list[str]

class PositionError(ValueError):
    """A position or move that cannot be."""

@final
class Position:
    """A position and the moves that reached it; immutable."""

    def __new__(cls, moves: str = "", *, rules: str = "7x6x4") -> "Position": ...
    @staticmethod
    def from_columns(columns: Sequence[int], *, rules: str = "7x6x4") -> "Position": ...
    @staticmethod
    def from_board(
        board: Any, *, convention: Convention = "course", rules: Optional[str] = None
    ) -> "Position": ...
    def play(self, column: int) -> "Position": ...
    def legal(self) -> list[int]: ...
    def is_over(self) -> bool: ...
    def winner(self) -> Optional[Literal[1, 2]]: ...
    @property
    def to_move(self) -> Literal[1, 2]: ...
    @property
    def moves(self) -> str: ...
    @property
    def columns(self) -> list[int]: ...
    @property
    def rules(self) -> str: ...
    def board(self, convention: Convention = "course") -> Any: ...
    def __len__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> "Position": ...
    def __deepcopy__(self, memo: Any, /) -> "Position": ...

PositionLike = Union[Position, str]

class Thought(TypedDict):
    column: int
    score: int
    exact: bool
    outcome: Optional[OutcomeName]
    depth: int
    nodes: int
    pv: list[int]

class BatchSolver:
    """Exact answers for many positions in one call, over worker threads made once."""

    def __init__(self, *, threads: int | None = None, hash_mb: int | None = None,
                 book: bool = True) -> None: ...
    @property
    def threads(self) -> int: ...
    def score(self, positions: Iterable[Position | str]) -> np.ndarray: ...
    def outcome(self, positions: Iterable[Position | str]) -> np.ndarray: ...
    def scores(self, positions: Iterable[Position | str]) -> np.ndarray: ...
    def best_move(self, positions: Iterable[Position | str]) -> tuple[np.ndarray, np.ndarray]: ...

@final
class Solver:
    """The exact solver and the clocked search, with a table kept between calls."""

    def __new__(
        cls, *, book: bool = True, hash_mb: Optional[int] = None, threads: int = 1
    ) -> "Solver": ...
    def score(self, position: PositionLike) -> int: ...
    def scores(self, position: PositionLike) -> list[Optional[int]]: ...
    def outcome(self, position: PositionLike) -> OutcomeName: ...
    def best_move(self, position: PositionLike, *, tie_break: TieBreak = "centre") -> int: ...
    def principal_variation(self, position: PositionLike) -> list[int]: ...
    def think(self, position: PositionLike, ms: int) -> Thought: ...

def score(position: PositionLike) -> int: ...
def scores(position: PositionLike) -> list[Optional[int]]: ...
def outcome(position: PositionLike) -> OutcomeName: ...
def best_move(position: PositionLike, *, tie_break: TieBreak = "centre") -> int: ...
def principal_variation(position: PositionLike) -> list[int]: ...
def think(position: PositionLike, ms: int) -> Thought: ...

@final
class Player:
    """One of the project's agents ('random', 'greedy', 'minimax:depth=4',
    'alphabeta:depth=4,eval=windows', 'expectimax', 'mcts', 'qlearning:model=FILE',
    'perfect')."""

    def __new__(cls, spec: str, *, seed: Optional[int] = None) -> "Player": ...
    @property
    def spec(self) -> str: ...
    def choose(self, position: PositionLike, ms: Optional[int] = None) -> int: ...
    def new_game(self, seed: Optional[int] = None) -> None: ...

class Verdict(TypedDict):
    ply: int
    column: int
    before: Optional[OutcomeName]
    after: Optional[OutcomeName]
    lost: bool
    keeping: Optional[int]

def verdicts(position: PositionLike) -> list[Verdict]: ...
def level(n: int, *, seed: Optional[int] = None) -> Player: ...

# A Player or agent spec, a course Policy (class or instance with act(board)),
# a Kaggle agent(observation, configuration), or a function of a Position.
PlayerLike = Any

class Game(TypedDict, total=False):
    moves: list[int]
    opening: int
    winner: Optional[Literal[1, 2]]
    forfeit: Optional[str]
    verdicts: list[Verdict]
    a_first: bool

class Match(TypedDict):
    wins: int
    draws: int
    losses: int
    score: float
    games: list[Game]

def as_player(player: PlayerLike, *, ms: Optional[int] = None) -> Any: ...
def play_game(
    first: PlayerLike,
    second: PlayerLike,
    *,
    opening: Union[str, Position] = "",
    rules: str = "7x6x4",
    ms: Optional[int] = None,
    judge: bool = False,
    seed: Optional[int] = None,
) -> Game: ...
def play_match(
    a: PlayerLike,
    b: PlayerLike,
    *,
    games: int = 10,
    opening_plies: int = 2,
    rules: str = "7x6x4",
    ms: Optional[int] = None,
    judge: bool = False,
    seed: Optional[int] = None,
) -> Match: ...

RewardKind = Literal["result", "verdict"]

def pettingzoo_env(
    *, rules: str = "7x6x4", reward: RewardKind = "result", render_mode: Optional[str] = None
) -> Any: ...
def gymnasium_env(
    opponent: PlayerLike = "random",
    *,
    play_first: bool = True,
    rules: str = "7x6x4",
    reward: RewardKind = "result",
    ms: Optional[int] = None,
    render_mode: Optional[str] = None,
) -> Any: ...
def kaggle_agent(
    player: PlayerLike = "perfect", *, ms: Optional[int] = None
) -> Callable[[Any, Any], Union[int, dict[str, int]]]: ...
def openspiel_bot(player: PlayerLike = "perfect", *, ms: Optional[int] = None) -> Any: ...
def textarena_agent(player: PlayerLike = "perfect", *, ms: Optional[int] = None) -> Callable[[str], str]: ...

class Lost(TypedDict):
    position: Position
    column: int
    keeping: int
    drop: int

class Accuracy(TypedDict):
    accuracy: Optional[float]
    kept: int
    judged: int
    lost: list[Lost]

def accuracy(
    player: PlayerLike,
    positions: Optional[Sequence[Any]] = None,
    *,
    games: int = 20,
    opponent: PlayerLike = "random",
    rules: str = "7x6x4",
    ms: Optional[int] = None,
    seed: Optional[int] = None,
    keep: int = 20,
) -> Accuracy: ...
