"""The generic algorithms on toy problems whose answers are known by hand."""

from typing import ClassVar

import pytest

from solvers import search
from solvers.base import BudgetExceeded

MAZE = (
    "S..#....",
    ".#.#.##.",
    ".#...#..",
    ".####.#.",
    "......#G",
)


class Maze(search.Problem):
    """Walk a grid from S to G; '#' is a wall. h = Manhattan distance."""

    MOVES: ClassVar = {"N": (-1, 0), "W": (0, -1), "E": (0, 1), "S": (1, 0)}

    def __init__(self, rows=MAZE):
        self.rows = rows
        self.initial = self._find("S")
        self.goal = self._find("G")

    def _find(self, mark):
        return next((r, row.index(mark)) for r, row in enumerate(self.rows) if mark in row)

    def actions(self, state):
        r, c = state
        return [m for m, (dr, dc) in self.MOVES.items()
                if 0 <= r + dr < len(self.rows) and 0 <= c + dc < len(self.rows[0])
                and self.rows[r + dr][c + dc] != "#"]

    def result(self, state, action):
        dr, dc = self.MOVES[action]
        return state[0] + dr, state[1] + dc

    def is_goal(self, state):
        return state == self.goal

    def h(self, state):
        return abs(state[0] - self.goal[0]) + abs(state[1] - self.goal[1])


class Roads(search.Problem):
    """A weighted graph where the fewest edges are not the cheapest route."""

    EDGES: ClassVar = {"A": {"B": 1, "C": 4, "G": 12}, "B": {"C": 2, "D": 5}, "C": {"D": 1},
                       "D": {"G": 3}, "G": {}}
    H: ClassVar = {"A": 7, "B": 6, "C": 4, "D": 3, "G": 0}  # true remaining costs: 7, 6, 4, 3, 0

    initial = "A"

    def actions(self, state):
        return sorted(self.EDGES[state])

    def result(self, state, action):
        return action

    def is_goal(self, state):
        return state == "G"

    def step_cost(self, state, action, next_state):
        return self.EDGES[state][action]

    def h(self, state):
        return self.H[state]


def walk(problem, path):
    state = problem.initial
    for action in path:
        assert action in problem.actions(state), f"{action} is not legal in {state}"
        state = problem.result(state, action)
    return state


MAZE_SHORTEST = 15  # along the top, down at column 2, back up at column 4, down the right side


@pytest.mark.parametrize("algorithm", [search.breadth_first, search.astar, search.ida_star])
def test_optimal_algorithms_find_the_shortest_maze_route(algorithm):
    problem = Maze()
    found = algorithm(problem)
    assert walk(problem, found.path) == problem.goal
    assert found.cost == len(found.path) == MAZE_SHORTEST
    assert found.optimal
    stats = found.stats
    assert set(stats) == {"expanded", "generated", "max_frontier", "elapsed_ms"}
    assert 1 <= stats["expanded"] <= stats["generated"] and stats["max_frontier"] >= 1


def test_maze_route_really_is_15():
    # an independent flood fill over the maze grid
    rows, start = MAZE, Maze().initial
    seen, layer, depth = {start}, [start], 0
    while not any(MAZE[r][c] == "G" for r, c in layer):
        depth += 1
        layer = [(r + dr, c + dc) for r, c in layer for dr, dc in Maze.MOVES.values()
                 if 0 <= r + dr < len(rows) and 0 <= c + dc < len(rows[0]) and rows[r + dr][c + dc] != "#"]
        layer = [cell for cell in dict.fromkeys(layer) if cell not in seen]
        seen.update(layer)
    assert depth == MAZE_SHORTEST


def test_bfs_counts_on_a_tiny_maze():
    problem = Maze(("S.", ".G"))
    found = search.breadth_first(problem)
    # root, then its two neighbours; the goal is generated from the first of them
    assert found.stats["generated"] == 4 and found.stats["expanded"] == 2
    assert found.path == ["E", "S"]


def test_informed_search_finds_the_cheapest_not_the_shortest_route():
    for algorithm in (search.astar, search.ida_star):
        found = algorithm(Roads())
        assert found.path == ["B", "C", "D", "G"] and found.cost == 7
    assert search.breadth_first(Roads()).path == ["G"]  # fewest edges, cost 12


def test_dfs_path_is_valid_but_not_claimed_optimal():
    problem = Maze()
    found = search.depth_first(problem)
    assert walk(problem, found.path) == problem.goal
    assert found.optimal is False
    assert found.cost == len(found.path) >= MAZE_SHORTEST


def test_bounded_dfs_finds_a_route_within_its_bound_or_says_it_did_not():
    problem = Maze()
    found = search.depth_first(problem, max_depth=MAZE_SHORTEST)
    assert len(found.path) == MAZE_SHORTEST and walk(problem, found.path) == problem.goal
    with pytest.raises(search.DepthLimitReached, match="no goal within 14 moves") as caught:
        search.depth_first(problem, max_depth=MAZE_SHORTEST - 1)
    assert isinstance(caught.value, BudgetExceeded)
    assert caught.value.stats["generated"] > 0


@pytest.mark.parametrize("algorithm", [search.breadth_first, search.astar, search.depth_first])
def test_unreachable_goal_is_reported_as_no_path(algorithm):
    problem = Maze(("S#.", "##G"))
    found = algorithm(problem)
    assert found.path is None and found.cost is None


@pytest.mark.parametrize("algorithm", [search.breadth_first, search.astar, search.ida_star,
                                       search.depth_first])
def test_node_budget_stops_the_search(algorithm):
    with pytest.raises(search.NodeLimitReached, match="after generating 6 states") as caught:
        algorithm(Maze(), max_nodes=5)
    assert isinstance(caught.value, BudgetExceeded) and caught.value.nodes == 6
