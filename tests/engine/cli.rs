//! The `connect4` binary's subcommands, driven as a user would.

use crate::common;

use assert_cmd::Command;
use connect4::protocol::{ErrorCode, Reply};
use predicates::prelude::*;

fn connect4() -> Command {
    Command::cargo_bin("connect4").expect("the binary is built")
}

#[test]
fn perft_prints_the_count() {
    connect4()
        .args(["perft", "5"])
        .assert()
        .success()
        .stdout(predicate::str::contains("perft 5 (7x6x4): 4263 positions"));
    connect4()
        .args(["perft", "2", "--rules", "4x4x3"])
        .assert()
        .success()
        .stdout(predicate::str::contains("16 positions"));
}

#[test]
fn bad_rules_say_which_bound() {
    connect4()
        .args(["perft", "2", "--rules", "10x6x4"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "columns = 10: must be between 4 and 9",
        ));
}

#[test]
fn solve_keeps_outputs_aligned_with_inputs() {
    connect4()
        .arg("solve")
        .write_stdin("5554224333234511764415115\n12121212\n7422341x\n52753311433677442422121\n")
        .assert()
        .failure()
        .stdout("5554224333234511764415115 4\n\n\n52753311433677442422121 8\n")
        .stderr(predicate::str::contains(
            "line 2: move 8: the game already ended at move 7 (first player won)",
        ))
        .stderr(predicate::str::contains(
            "line 3: move 8 ('x'): not a column digit",
        ));
}

// Positions and scores from Test_L2_R1 (labelled by an independent solver).
const L2: &str = "5554224333234511764415115";
const L2_SCORE: i32 = 4;

#[test]
fn solve_weak_and_analyze() {
    connect4()
        .args(["solve", "--weak", L2])
        .assert()
        .success()
        .stdout(format!("{L2} 1\n"));
    let output = connect4()
        .args(["solve", "--analyze", L2])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let fields: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(fields.len(), 8, "{text}");
    assert_eq!(fields[0], L2);
    // Column 5 is full; the best column scores the position's value.
    assert_eq!(fields[5], "-", "{text}");
    let best = fields[1..]
        .iter()
        .filter_map(|f| f.parse::<i32>().ok())
        .max();
    assert_eq!(best, Some(L2_SCORE), "{text}");
}

#[test]
fn bench_checks_every_score() {
    let dir = std::env::temp_dir().join(format!("connect4-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let right = dir.join("right");
    let wrong = dir.join("wrong");
    std::fs::write(
        &right,
        "7422341 13\n2252576253462244111563365343671351441 -1\n",
    )
    .unwrap();
    std::fs::write(&wrong, "7422341 12\n").unwrap();
    connect4()
        .arg("bench")
        .arg(&right)
        .assert()
        .success()
        .stdout(predicate::str::contains("positions 2 wrong 0"));
    connect4()
        .arg("bench")
        .arg(&wrong)
        .assert()
        .failure()
        .stdout(predicate::str::contains("positions 1 wrong 1"))
        .stdout(predicate::str::contains(
            "first wrong: 7422341 expected 12 found 13",
        ));
    std::fs::write(&wrong, "7422341\n").unwrap();
    connect4()
        .arg("bench")
        .arg(&wrong)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "line 1: expected '<moves> <score>', found '7422341'",
        ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A bad position given as an argument is named as an argument, quoted,
/// not as a line of input; one read from stdin is named by its line.
#[test]
fn solve_names_a_bad_argument_as_an_argument() {
    connect4()
        .args(["solve", "44", "448"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "connect4 solve: argument 2 ('448'): move 3 ('8'): column 8 does not exist",
        ));
    connect4()
        .arg("solve")
        .write_stdin("448\n")
        .assert()
        .failure()
        .stderr(predicate::str::contains("connect4 solve: line 1: move 3"));
}

/// The node count of the built-in bench set: it changes only when the search
/// does. A commit that changes it on purpose updates it here and says so.
const BENCH_SIGNATURE: u64 = 6_815_618;

#[test]
fn bench_builtin_prints_the_pinned_signature() {
    connect4()
        .arg("bench")
        .assert()
        .success()
        .stdout(predicate::str::contains("built-in: positions 35 wrong 0"))
        .stdout(predicate::str::contains(format!(
            "signature: {BENCH_SIGNATURE} nodes"
        )));
}

#[test]
fn train_writes_a_model_and_a_curve_that_a_session_plays_with() {
    let dir = std::env::temp_dir().join(format!("c4-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("q.json");
    let plot = dir.join("q.svg");
    connect4()
        .args(["train", "qlearning", "--episodes", "400", "--window", "100"])
        .arg("--plot")
        .arg(&plot)
        .args([
            "--explore",
            "epsilon:1.0..0.05",
            "--opponent",
            "random:seed=2",
        ])
        .arg("--out")
        .arg(&model)
        .assert()
        .success()
        .stdout(predicate::str::contains("(4 points)"))
        .stderr(predicate::str::contains("train: 400/400"));
    let curve = std::fs::read_to_string(dir.join("q.csv")).unwrap();
    let lines: Vec<&str> = curve.lines().collect();
    assert_eq!(lines.len(), 5, "{curve}");
    assert_eq!(
        lines[0],
        "episode,mean_reward,win_rate,draw_rate,mean_length"
    );
    assert!(lines[4].starts_with("400,"), "{curve}");
    let texts = svg_texts(&plot);
    for series in ["wins", "draws", "mean reward", "mean length"] {
        assert!(texts.iter().any(|t| t == series), "{series} in {texts:?}");
    }

    // The model plays on its board and refuses another one.
    let agent = format!("qlearning:model={}", model.display());
    let mut engine = common::Driver::start_with(&["--agent", &agent]);
    engine.send(r#"{"cmd":"position","moves":"4"}"#);
    engine.recv();
    engine.send(r#"{"cmd":"go","id":1}"#);
    assert!(matches!(engine.recv_final(), Reply::Bestmove { column, .. } if column >= 1));
    engine.send(r#"{"cmd":"newgame","rules":{"rows":7}}"#);
    engine.recv();
    engine.send(r#"{"cmd":"go","id":2}"#);
    match engine.recv_final() {
        Reply::Error { code, message, .. } => {
            assert_eq!(code, ErrorCode::BadOption);
            assert!(
                message.contains("trained on 7x6x4, this game is on 7x7x4"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Analysis is the solver's, whatever the agent: it still works there.
    engine.send(r#"{"cmd":"analyze","id":3,"depth":2}"#);
    assert!(matches!(engine.recv_final(), Reply::Analysis { .. }));

    for (args, why) in [
        (vec!["--explore", "greedy"], "--explore 'greedy': expected"),
        (
            vec!["--opponent", "oracle"],
            "--opponent: unknown agent 'oracle'",
        ),
        (vec!["--alpha", "0"], "--alpha 0: expected above 0"),
    ] {
        connect4()
            .args(["train", "qlearning", "--episodes", "10"])
            .args(args)
            .arg("--out")
            .arg(dir.join("bad.json"))
            .assert()
            .failure()
            .stderr(predicate::str::contains(why));
    }
    assert!(!dir.join("bad.json").exists());
    connect4()
        .args([
            "train",
            "qlearning",
            "--episodes",
            "10",
            "--out",
            "/nonexistent/q.json",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "/nonexistent/q.json: the directory /nonexistent does not exist",
        ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tune_writes_weights_that_an_agent_loads() {
    let dir = std::env::temp_dir().join(format!("c4-tune-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("w.json");
    let plot = dir.join("tune.svg");
    connect4()
        .args(["tune", "--eval", "features", "--agent", "alphabeta:depth=1"])
        .arg("--plot")
        .arg(&plot)
        .args([
            "--iterations",
            "2",
            "--pairs",
            "6",
            "--seed",
            "4",
            "--threads",
            "2",
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "start: eval=features,w.consecutive=4",
        ))
        .stderr(predicate::str::contains("iteration 2: eval=features"))
        .stderr(predicate::str::contains("over 12 games"));
    let w = connect4::agents::evaluators::Weights::load(&out).unwrap();
    assert_eq!(w.kind(), connect4::agents::evaluators::EvalKind::Features);
    let texts = svg_texts(&plot);
    for series in w.names() {
        assert!(texts.iter().any(|t| t == series), "{series} in {texts:?}");
    }
    let spec = format!("alphabeta:depth=2,weights={}", out.display());
    assert!(connect4::engine::check_player_spec(&spec).is_ok());
    for (args, why) in [
        (
            vec!["--eval", "magic"],
            "--eval magic: expected windows, local or features",
        ),
        (vec!["--agent", "mcts"], "--agent mcts: expected minimax"),
        (
            vec!["--eval", "random"],
            "evaluator 'random' has no weights",
        ),
        (vec!["--factor", "2"], "--factor 2"),
    ] {
        connect4()
            .args(["tune", "--iterations", "1", "--pairs", "1"])
            .args(args)
            .arg("--out")
            .arg(dir.join("bad.json"))
            .assert()
            .failure()
            .stderr(predicate::str::contains(why));
        assert!(!dir.join("bad.json").exists(), "{why}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn play_runs_a_whole_game_from_piped_input_with_undo_and_hint() {
    let mut input = String::from("u\nh\n4\nu\n0\nfoo\n");
    for _ in 0..20 {
        input.push_str("1\n2\n3\n4\n5\n6\n7\n");
    }
    let out = connect4()
        .args(["play", "--agent", "random:seed=1", "--human", "second"])
        .args(["--hint-time", "50"])
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("You play O (moving second) against random:seed=1"),
        "{out}"
    );
    assert!(out.contains("nothing to undo"), "{out}");
    assert!(out.contains("hint: 1: "), "{out}");
    assert!(out.contains("took back 2 move(s)"), "{out}");
    assert!(
        out.contains("column 0 does not exist on a 7-column board"),
        "{out}"
    );
    assert!(out.contains("'foo' is not a move"), "{out}");
    assert!(out.contains("engine plays"), "{out}");
    assert!(
        ["you win (", "the engine wins (", "draw: the board is full"]
            .iter()
            .any(|end| out.contains(end)),
        "{out}"
    );
    assert!(!out.contains('\x1b'), "no colours into a pipe");
}

#[test]
fn play_colours_a_terminal_unless_no_color_is_set() {
    let bin = assert_cmd::cargo::cargo_bin!("connect4")
        .display()
        .to_string();
    let run = |no_color: bool| {
        let mut cmd = std::process::Command::new("script");
        cmd.args(["-qec", &format!("{bin} play --agent greedy"), "/dev/null"]);
        if no_color {
            cmd.env("NO_COLOR", "1");
        } else {
            cmd.env_remove("NO_COLOR");
        }
        let out = cmd
            .stdin(std::process::Stdio::null())
            .output()
            .expect("util-linux script is installed");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let coloured = run(false);
    assert!(coloured.contains("\x1b[1;31mX\x1b[0m"), "{coloured}");
    let plain = run(true);
    assert!(
        plain.contains("You play X") && !plain.contains('\x1b'),
        "{plain}"
    );
}

#[test]
fn play_rejects_a_bad_agent_before_the_game() {
    connect4()
        .args(["play", "--agent", "oracle"])
        .write_stdin("")
        .assert()
        .failure()
        .stderr(predicate::str::contains("--agent: unknown agent 'oracle'"));
}

#[test]
fn every_subcommand_s_help_ends_with_an_example() {
    for sub in [
        &["solve"][..],
        &["bench"],
        &["perft"],
        &["train"],
        &["train", "qlearning"],
        &["tune"],
        &["play"],
        &["book"],
        &["book", "build"],
        &["book", "merge"],
        &["book", "verify"],
        &["book", "stats"],
    ] {
        let out = connect4().args(sub).arg("--help").output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let last = text.trim_end().lines().last().unwrap_or("");
        assert!(
            text.contains("Example: connect4 "),
            "{sub:?} --help has no example:\n{text}"
        );
        assert!(!last.is_empty(), "{sub:?}");
    }
}

#[test]
fn book_build_carries_on_with_its_own_board_and_refuses_another() {
    let dir = std::env::temp_dir().join(format!("c4-bookcli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("small.c4book");
    let build = |extra: &[&str]| {
        let mut cmd = connect4();
        cmd.args(["book", "build", "--hash-mb", "16", "--out"])
            .arg(&book)
            .args(extra);
        cmd
    };
    build(&["--rules", "5x4x4", "--depth", "3"])
        .assert()
        .success();
    // Without --rules, a shard or a resume works on the file's board.
    build(&["--depth", "4", "--shard", "1/2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("shard done"));
    build(&["--depth", "4"])
        .assert()
        .success()
        .stdout(predicate::str::contains("complete to ply 4"));
    // Deviations (the losing sides' trees): recorded in the file, the plies
    // counted again and filled.
    build(&["--depth", "4", "--deviations", "3", "--threads", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("complete to ply 4"));
    connect4()
        .args(["book", "stats"])
        .arg(&book)
        .assert()
        .success()
        .stdout(predicate::str::contains("losing sides' trees to ply 3"))
        .stdout(predicate::str::contains("deepest stored ply 4"));
    build(&["--rules", "7x6x4", "--depth", "5"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "is a book for the 5x4x4 board, but --rules says 7x6x4",
        ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_layer_is_built_in_shards_merged_and_checked_and_bad_plies_are_named() {
    let dir = std::env::temp_dir().join(format!("c4-layercli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let part = |i: u32| dir.join(format!("part{i}.c4book"));
    for i in 1..=2 {
        connect4()
            .args([
                "book", "build", "--rules", "5x4x4", "--layer", "6", "--shard",
            ])
            .arg(format!("{i}/2"))
            .arg("--out")
            .arg(part(i))
            .assert()
            .success()
            .stdout(
                predicate::str::contains("layer of ply 6:")
                    .and(predicate::str::contains("shard done")),
            );
    }
    let whole = dir.join("whole.c4book");
    connect4()
        .args(["book", "merge", "--out"])
        .arg(&whole)
        .arg(part(1))
        .arg(part(2))
        .assert()
        .success()
        .stdout(predicate::str::contains("layer of ply 6:"));
    let stats = |extra: &[&str]| {
        let out = connect4()
            .args(["book", "stats"])
            .args(extra)
            .arg(&whole)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let line = text.lines().find(|l| l.starts_with("layer of ply 6:"));
        let words: Vec<String> = line.unwrap().split_whitespace().map(String::from).collect();
        words
    };
    // "layer of ply 6: K of the N positions a game reaches ..."
    let counted = stats(&["--coverage"]);
    assert_eq!(counted[4], counted[7], "{counted:?}");
    assert_eq!(counted[8..11], ["positions", "a", "game"], "{counted:?}");
    // "layer of ply 6: K positions known, S slots", without decoding a slot.
    let known = stats(&[]);
    assert_eq!(known[4], counted[4], "{known:?}");
    assert_eq!(known[5..7], ["positions", "known,"], "{known:?}");
    connect4()
        .args(["book", "verify", "--layer", "6", "--sample", "30"])
        .arg(&whole)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("30 positions re-solved")
                .and(predicate::str::contains("0 disagree")),
        );
    connect4()
        .args(["book", "verify", "--layer", "5"])
        .arg(&whole)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "the book has no layer of ply 5 (it has plies 6)",
        ));
    let refused = |args: &[&str], words: &str| {
        connect4()
            .args(["book", "build", "--out"])
            .arg(dir.join("refused.c4book"))
            .args(args)
            .assert()
            .failure()
            .stderr(predicate::str::contains(words.to_string()));
    };
    refused(
        &["--layer", "20", "--rules", "5x4x4"],
        "the ply must be between 1 and 19",
    );
    refused(&["--layer", "5", "--rules", "8x6x4"], "at most 7 columns");
    refused(&["--layer", "5", "--depth", "8"], "cannot be used with");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The texts of an SVG picture, which must parse as XML.
fn svg_texts(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("the picture is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_string())
        .collect()
}
