//! The rules core against ground truth: Tromp's perft counts, and a naive
//! array-board implementation over thousands of seeded random games.

use std::collections::HashMap;

use connect4::grid::{game_from_flat, game_from_rows, to_rows};
use connect4::perft::perft_levels;
use connect4::{Game, Player, Position, Rules, Status};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// OEIS A212693: distinct positions after n plies on 7 x 6 (John Tromp).
const TROMP: [u64; 10] = [1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275, 558186];

#[test]
fn perft_matches_tromp_up_to_9() {
    assert_eq!(perft_levels(Rules::STANDARD, 9), TROMP.to_vec());
}

/// A deliberately naive board: cells[column][row], 0 empty, 1 or 2.
#[derive(Clone)]
struct Naive {
    columns: usize,
    rows: usize,
    inarow: usize,
    cells: Vec<Vec<u8>>,
    moves: usize,
}

impl Naive {
    fn new(rules: Rules) -> Naive {
        Naive {
            columns: rules.columns() as usize,
            rows: rules.rows() as usize,
            inarow: rules.inarow() as usize,
            cells: vec![vec![0; rules.rows() as usize]; rules.columns() as usize],
            moves: 0,
        }
    }

    fn height(&self, c: usize) -> usize {
        self.cells[c].iter().take_while(|&&v| v != 0).count()
    }

    fn legal(&self) -> Vec<u32> {
        (0..self.columns)
            .filter(|&c| self.height(c) < self.rows)
            .map(|c| c as u32)
            .collect()
    }

    fn play(&mut self, c: usize) {
        let h = self.height(c);
        self.cells[c][h] = if self.moves.is_multiple_of(2) { 1 } else { 2 };
        self.moves += 1;
    }

    /// Whether `who` has `inarow` in a line anywhere, by walking every start
    /// cell in every direction.
    fn has_line(&self, who: u8) -> bool {
        let dirs: [(i64, i64); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
        for c in 0..self.columns as i64 {
            for r in 0..self.rows as i64 {
                for (dc, dr) in dirs {
                    let all = (0..self.inarow as i64).all(|i| {
                        let (cc, rr) = (c + i * dc, r + i * dr);
                        cc >= 0
                            && rr >= 0
                            && cc < self.columns as i64
                            && rr < self.rows as i64
                            && self.cells[cc as usize][rr as usize] == who
                    });
                    if all {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Empty cells (column, row) where `who` would complete a line.
    fn winning_cells(&mut self, who: u8) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for c in 0..self.columns {
            for r in 0..self.rows {
                if self.cells[c][r] == 0 {
                    self.cells[c][r] = who;
                    if self.has_line(who) {
                        out.push((c as u32, r as u32));
                    }
                    self.cells[c][r] = 0;
                }
            }
        }
        out
    }
}

fn cells_of(p: &Position, bits: u64) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for c in 0..p.columns() {
        for r in 0..p.rows() {
            if bits & p.cell_bit(c, r) != 0 {
                out.push((c, r));
            }
        }
    }
    out
}

fn cross_check(rules: Rules, games: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut keys: HashMap<u64, Vec<Vec<u8>>> = HashMap::new();
    for game in 0..games {
        let mut naive = Naive::new(rules);
        let mut p = Position::new(rules);
        let mut played = Vec::new();
        loop {
            let ctx = format!("{rules} game {game} moves {played:?}");
            let naive_won =
                naive.moves > 0 && naive.has_line(if naive.moves % 2 == 1 { 1 } else { 2 });
            let expected = if naive_won {
                Status::Won(if naive.moves % 2 == 1 {
                    Player::First
                } else {
                    Player::Second
                })
            } else if naive.legal().is_empty() {
                Status::Draw
            } else {
                Status::Ongoing
            };
            assert_eq!(p.status(), expected, "{ctx}");
            let rows = to_rows(&p);
            let entry = keys.entry(p.key()).or_insert_with(|| rows.clone());
            assert_eq!(*entry, rows, "key collision at {ctx}");
            if expected != Status::Ongoing {
                assert!(p.legal_moves().is_empty(), "{ctx}");
                break;
            }
            assert_eq!(p.legal_moves(), naive.legal(), "{ctx}");
            let (me, them) = if naive.moves.is_multiple_of(2) {
                (1, 2)
            } else {
                (2, 1)
            };
            assert_eq!(
                cells_of(&p, p.own_winning_cells()),
                naive.winning_cells(me),
                "{ctx}"
            );
            assert_eq!(
                cells_of(&p, p.opponent_winning_cells()),
                naive.winning_cells(them),
                "{ctx}"
            );
            for c in naive.legal() {
                let mut n = naive.clone();
                n.play(c as usize);
                assert_eq!(p.is_winning_move(c), n.has_line(me), "{ctx} column {c}");
            }
            let c = naive.legal()[rng.random_range(0..naive.legal().len())];
            naive.play(c as usize);
            p.play(c);
            played.push(c + 1);
        }
        // Round trips between the three notations.
        let g = Game::from_columns(
            rules,
            &played.iter().map(|&c| i64::from(c)).collect::<Vec<_>>(),
        )
        .unwrap();
        assert_eq!(*g.position(), p);
        let from_string = Game::from_move_string(rules, &g.move_string()).unwrap();
        assert_eq!(from_string, g);
        let rows: Vec<Vec<i64>> = to_rows(&p)
            .into_iter()
            .map(|r| r.into_iter().map(i64::from).collect())
            .collect();
        let from_grid = game_from_rows(rules, &rows).unwrap();
        assert_eq!(*from_grid.position(), p, "grid of {}", g.move_string());
        let replayed = Game::from_move_string(rules, &from_grid.move_string()).unwrap();
        assert_eq!(*replayed.position(), p);
        let flat: Vec<i64> = rows.concat();
        assert_eq!(*game_from_flat(rules, &flat).unwrap().position(), p);
        // The mirror key is the key of the mirrored game.
        let mirrored: Vec<i64> = played
            .iter()
            .map(|&c| i64::from(rules.columns() + 1 - c))
            .collect();
        let m = Game::from_columns(rules, &mirrored).unwrap();
        assert_eq!(m.position().key(), p.mirror_key());
    }
}

#[test]
fn bitboard_agrees_with_naive_board() {
    let sizes = [(7, 6), (7, 7), (9, 6), (8, 7), (4, 4)];
    for (i, &(columns, rows)) in sizes.iter().enumerate() {
        for inarow in [3, 4, 5] {
            let Ok(rules) = Rules::new(columns, rows, inarow) else {
                continue;
            };
            cross_check(rules, 400, 1000 * i as u64 + u64::from(inarow));
        }
    }
}

#[test]
fn unusual_sizes_play_by_the_rules() {
    // Tall and long-line boards exercise shifts past the word size.
    for (c, r, k) in [(4, 15, 4), (4, 15, 15), (9, 6, 9), (5, 11, 7)] {
        cross_check(
            Rules::new(c, r, k).unwrap(),
            100,
            u64::from(c * 100 + r * 10 + k),
        );
    }
}
