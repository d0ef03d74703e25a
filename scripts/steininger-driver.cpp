// A driver for Christophe Steininger's c4 solver (github.com/
// ChristopheSteininger/c4, commit 80baa53), which as published solves one
// position fixed in its source: this reads one move string per line on
// stdin (columns from 1, as the public test sets write them), solves each
// exactly with one Solver (its table kept from one position to the next,
// as our `connect4 solve` keeps its own) and prints "<moves> <score>".
// Its scores are in the sets' convention already: positive, the side to
// move wins, larger the sooner. Built with the solver's sources by
// scripts/bench-vs-references.sh, with its settings.h set to one thread.

#include <iostream>
#include <string>

#include "solver/position.h"
#include "solver/solver.h"

int main() {
    std::ios::sync_with_stdio(false);
    Solver solver{};
    std::string line;
    while (std::getline(std::cin, line)) {
        const std::string moves = line.substr(0, line.find_first_of(" \t\r"));
        Position pos{};
        bool valid = true;
        for (const char c : moves) {
            const int col = c - '1';
            if (col < 0 || col >= BOARD_WIDTH || !pos.is_move_valid(col)) {
                valid = false;
                break;
            }
            pos.move(col);
        }
        if (!valid) {
            std::cerr << "not a position: '" << moves << "'" << std::endl;
            return 1;
        }
        std::cout << moves << " " << solver.solve_strong(pos) << std::endl;
    }
    return 0;
}
