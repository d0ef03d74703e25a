//! The course experiments at a tiny size: each writes its table and pictures.

use predicates::prelude::*;

use crate::common;
use common::*;

/// A picture an experiment draws (its file name without `.svg`) and the
/// series, ticks and notes it must show.
type Picture = (&'static str, &'static [&'static str]);

#[test]
fn each_experiment_at_a_tiny_size_writes_its_table_and_pictures() {
    let dir = scratch("experiments");
    // (experiment, extra arguments, its pictures and the series each shows)
    let cases: [(&str, &[&str], &[Picture]); 5] = [
        (
            "vs-random",
            &["--games", "2"],
            &[(
                "A-win-rate",
                &[
                    "ours: 2 games, both colours",
                    "the report: 100 games as first",
                    "alphabeta-4",
                    "expectimax-2",
                ],
            )],
        ),
        (
            "B",
            &["--games", "2"],
            &[("B-elo", &["local-4 vs greedy", "local-4 vs windows-4"])],
        ),
        (
            "learning",
            &["--games", "2"],
            &[
                (
                    "C-learning-curve",
                    &["wins", "draws", "mean reward", "mean length"],
                ),
                (
                    "C-budgets",
                    &["MCTS as first", "MCTS as second", "simulations per move"],
                ),
            ],
        ),
        (
            "depth-tables",
            &["--games", "2", "--max-depth", "2"],
            &[
                (
                    "D-win-rate",
                    &[
                        "1: untuned vs random evaluator",
                        "2: untuned vs tuned",
                        "3: tuned vs random evaluator",
                        "Each pairing E1 vs E2",
                    ],
                ),
                (
                    "D-nodes",
                    &["untuned, with pruning", "untuned, without pruning"],
                ),
                (
                    "D-tuning",
                    &["kept", "rejected", "consecutive", "alignment"],
                ),
            ],
        ),
        (
            "E",
            &["--games", "2", "--max-depth", "3"],
            &[(
                "E-nodes",
                &[
                    "minimax (measured)",
                    "alpha-beta (measured)",
                    "full tree, sum of b^i",
                    "minimal tree (perfect ordering)",
                ],
            )],
        ),
    ];
    for (name, extra, pictures) in cases {
        arena()
            .args(["experiment", name, "--out"])
            .arg(&dir)
            .args(extra)
            .assert()
            .success()
            .stdout(predicate::str::contains("done in"));
        let letter = &pictures[0].0[..1];
        let table = std::fs::read_to_string(dir.join(format!("{letter}.md"))).unwrap();
        assert!(table.starts_with(&format!("### {letter}.")), "{table}");
        assert!(table.contains("|---|"), "{table}");
        let csv = std::fs::read_to_string(dir.join(format!("{letter}.csv"))).unwrap();
        assert!(csv.lines().count() >= 2, "{csv}");
        for (picture, series) in pictures {
            let texts = svg_texts(&dir.join(format!("{picture}.svg")));
            for s in series.iter() {
                // A series' name whole, or a note's first words.
                assert!(
                    texts.iter().any(|t| t.starts_with(s)),
                    "{picture}: no '{s}' in {texts:?}"
                );
            }
        }
    }
    arena()
        .args(["experiment", "--list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("E  node-counts"));
    arena()
        .args(["experiment", "F"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "no experiment 'F'; the experiments: vs-random (A)",
        ));
}
