//! What the grader tells a student about the games it lost: the move that
//! gave the value away, the position before it, and a move that kept it,
//! each checked here against the solver.

use connect4::search::Solver;
use connect4::{Game, Rules};
use connect4_grade::GradescopeResults;

use crate::common;
use common::arena;

/// One explained game read back from the output: the position drawn, the
/// column played and the column said to keep the value (0-based).
struct Told {
    position: Game,
    played: u32,
    keeping: Option<u32>,
}

/// The number after `word ` in `text` (the first one).
fn number_after(text: &str, word: &str) -> Option<u32> {
    let rest = &text[text.find(word)? + word.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The explained games of a test's output (protocol terms: columns 1 to 7,
/// a board of X and O).
fn told(output: &str) -> Vec<Told> {
    let lines: Vec<&str> = output.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !line.contains("): your move ") {
            continue;
        }
        let played = number_after(line, "(column ").unwrap() - 1;
        let keeping = number_after(line, "Playing column ").map(|c| c - 1);
        // The picture: the fence, six rows, the numbers, the fence.
        let rows: Vec<Vec<i64>> = lines[i + 2..i + 8]
            .iter()
            .map(|row| {
                row.split_whitespace()
                    .map(|cell| match cell {
                        "X" => 1,
                        "O" => 2,
                        _ => 0,
                    })
                    .collect()
            })
            .collect();
        let position = connect4::grid::game_from_rows(Rules::STANDARD, &rows).unwrap();
        out.push(Told {
            position,
            played,
            keeping,
        });
    }
    out
}

#[test]
fn the_move_that_lost_each_game_is_named_and_the_solver_agrees() {
    let dir = common::scratch("feedback");
    let results = dir.join("results.json");
    arena()
        .args([
            "grade",
            "--engine",
            "name=greedy,cmd=self,option.agent=greedy",
            "--games",
            "2",
            "--match-games",
            "6",
            "--tactics",
            "1",
            "--results",
        ])
        .arg(&results)
        .assert()
        .success();
    let r: GradescopeResults =
        serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    let mut solver = Solver::new(64);
    let mut checked = 0;
    for test in &r.tests {
        for t in told(&test.output) {
            let scores = solver.analyze(t.position.position());
            let best = scores.iter().flatten().max().copied().unwrap();
            let played = scores[t.played as usize].unwrap();
            assert!(
                played.signum() < best.signum(),
                "column {} does not lose the value ({played} against {best}) in\n{}",
                t.played,
                test.output
            );
            let keeping = t.keeping.expect("a move that keeps the value is given");
            assert_eq!(
                scores[keeping as usize].unwrap().signum(),
                best.signum(),
                "{}",
                test.output
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "no game explained: {r:?}");
    assert!(
        r.tests
            .iter()
            .all(|t| t.output.matches("): your move ").count() <= 5),
        "at most 5 games a test"
    );
    std::fs::remove_dir_all(&dir).ok();
}
