//! The course agents: legal moves, limits, reproducibility, minimax against
//! alphabeta, and seeded matches.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use connect4::agents::{Agent, session_player};
use connect4::lab::selfplay::play_pairs;
use connect4::search::Limits;
use connect4::{Position, Rules};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn agent(spec: &str) -> Box<dyn Agent> {
    connect4::agents::from_spec(spec).unwrap()
}

/// Random positions that are not over.
fn positions(rules: Rules, count: usize, seed: u64) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut p = Position::new(rules);
        let plies = rng.random_range(0..rules.cells() as usize);
        for _ in 0..plies {
            if p.is_over() {
                break;
            }
            let m = p.legal_moves();
            p.play(m[rng.random_range(0..m.len())]);
        }
        if !p.is_over() {
            out.push(p);
        }
    }
    out
}

const SPECS: &[&str] = &[
    "random:seed=3",
    "greedy",
    "minimax:depth=2",
    "alphabeta:depth=3",
    "alphabeta:depth=2,eval=random,seed=5",
    "alphabeta:depth=2,w.centre=10,w.opp_three=-200",
    "alphabeta:depth=3,eval=local",
    "minimax:depth=2,eval=features,w.rising=5",
    "expectimax:depth=2",
    "mcts:simulations=200,seed=4",
    "mcts:simulations=100,rollout=centre,c=0.5,reuse=false",
];

#[test]
fn every_agent_plays_only_legal_moves() {
    for rules in [Rules::STANDARD, Rules::new(7, 7, 4).unwrap()] {
        for spec in SPECS {
            let mut a = agent(spec);
            for p in positions(rules, 150, 7) {
                let m = a.choose(&p, &Limits::none(), None);
                assert!(
                    p.can_play(m.column),
                    "{spec} on {rules}: column {}",
                    m.column
                );
            }
        }
    }
}

#[test]
fn tactical_agents_win_at_once_and_block() {
    // "445566": the first player wins at column 3 or 7; "11223": the second
    // player must block column 4.
    let win = *connect4::Game::from_move_string(Rules::STANDARD, "445566")
        .unwrap()
        .position();
    let block = *connect4::Game::from_move_string(Rules::STANDARD, "11223")
        .unwrap()
        .position();
    for spec in [
        "greedy",
        "minimax:depth=2",
        "alphabeta:depth=4",
        "mcts:simulations=50",
    ] {
        let mut a = agent(spec);
        assert!(
            [2, 6].contains(&a.choose(&win, &Limits::none(), None).column),
            "{spec}"
        );
        assert_eq!(a.choose(&block, &Limits::none(), None).column, 3, "{spec}");
    }
}

#[test]
fn a_seed_reproduces_a_random_agent() {
    let ps = positions(Rules::STANDARD, 50, 9);
    let play = |seed: u64| {
        let mut a = agent(&format!("random:seed={seed}"));
        ps.iter()
            .map(|p| a.choose(p, &Limits::none(), None).column)
            .collect::<Vec<_>>()
    };
    assert_eq!(play(1), play(1));
    assert_ne!(play(1), play(2));
}

#[test]
fn a_seed_reproduces_mcts_and_another_seed_differs() {
    let ps = positions(Rules::STANDARD, 30, 13);
    let play = |spec: &str| {
        let mut a = agent(spec);
        ps.iter()
            .map(|p| {
                let m = a.choose(p, &Limits::none(), None);
                (m.column, m.value, m.nodes)
            })
            .collect::<Vec<_>>()
    };
    let a = play("mcts:simulations=100,seed=1");
    assert_eq!(a, play("mcts:simulations=100,seed=1"));
    assert_ne!(a, play("mcts:simulations=100,seed=2"));
}

#[test]
fn mcts_reuses_the_subtree_of_the_expected_reply() {
    use connect4::agents::mcts::MctsAgent;
    let spec = connect4::agents::Spec::parse("mcts:simulations=500,seed=3").unwrap();
    let mut a = MctsAgent::from_spec(&spec).unwrap();
    let mut p = Position::new(Rules::STANDARD);
    let m = a.choose(&p, &Limits::none(), None);
    assert_eq!((m.nodes, a.root_visits()), (500, 500));
    p.play(m.column);
    p.play(3);
    a.choose(&p, &Limits::none(), None);
    assert!(a.root_visits() > 500, "{} visits", a.root_visits());
    let spec = connect4::agents::Spec::parse("mcts:simulations=500,reuse=false").unwrap();
    let mut fresh = MctsAgent::from_spec(&spec).unwrap();
    fresh.choose(&p, &Limits::none(), None);
    assert_eq!(fresh.root_visits(), 500);
}

#[test]
fn minimax_and_alphabeta_agree_and_alphabeta_visits_fewer_nodes() {
    let (mut mm_nodes, mut ab_nodes) = (0, 0);
    for p in positions(Rules::STANDARD, 25, 11) {
        for depth in 1..=5 {
            let mut mm = agent("minimax:eval=windows");
            let mut ab = agent("alphabeta:eval=windows");
            let a = mm.choose(&p, &Limits::depth(depth), None);
            let b = ab.choose(&p, &Limits::depth(depth), None);
            assert_eq!((a.column, a.value), (b.column, b.value), "depth {depth}");
            assert!(b.nodes <= a.nodes);
            mm_nodes += a.nodes;
            ab_nodes += b.nodes;
        }
    }
    assert!(
        ab_nodes * 2 < mm_nodes,
        "alphabeta {ab_nodes} vs minimax {mm_nodes}"
    );
}

#[test]
fn clock_limits_and_the_stop_flag_are_honoured() {
    let p = Position::new(Rules::STANDARD);
    let mut a = agent("minimax:depth=8");
    let m = a.choose(&p, &Limits::nodes(5000), None);
    assert!(m.nodes <= 5000 && p.can_play(m.column), "{m:?}");
    let stop = Arc::new(AtomicBool::new(true));
    let m = a.choose(&p, &Limits::none(), Some(stop.clone()));
    assert!(m.nodes <= 1024 && p.can_play(m.column), "{m:?}");
    let mut mcts = agent("mcts:simulations=100000");
    let m = mcts.choose(&p, &Limits::nodes(123), None);
    assert_eq!(m.nodes, 123, "a go node limit is a simulation budget");
    let m = mcts.choose(&p, &Limits::none(), Some(stop));
    assert!(m.nodes == 0 && p.can_play(m.column), "{m:?}");
    let t = std::time::Instant::now();
    let m = mcts.choose(
        &p,
        &Limits::time(std::time::Duration::from_millis(30)),
        None,
    );
    assert!(m.nodes < 100_000 && p.can_play(m.column), "{m:?}");
    assert!(t.elapsed() < std::time::Duration::from_secs(5));
}

/// Wins of `a` against `b` and games, over colour-swapped pairs from the
/// 1-ply openings in turn.
fn match_score(a: &str, b: &str, pairs: u32) -> (u32, u32) {
    let openings: Vec<Vec<u32>> = (0..pairs).map(|i| vec![i % 7]).collect();
    let s = play_pairs(Rules::STANDARD, a, b, &openings, &Limits::none()).unwrap();
    (s.wins, 2 * s.pairs())
}

#[test]
fn agents_beat_random_and_alphabeta_beats_greedy() {
    for spec in [
        "greedy",
        "minimax:depth=2",
        "alphabeta:depth=4",
        "alphabeta:depth=3,eval=local",
        "alphabeta:depth=3,eval=features",
        "expectimax:depth=3",
        "mcts:simulations=300,seed=2",
        "solver:nodes=20000",
    ] {
        let (wins, games) = match_score(spec, "random:seed=1", 10);
        assert!(wins >= 19, "{spec} won {wins} of {games} against random");
    }
    let (wins, games) = match_score("alphabeta:depth=4", "greedy", 7);
    assert!(
        wins * 2 > games,
        "alphabeta:depth=4 won {wins} of {games} against greedy"
    );
}

#[test]
fn a_weights_file_sets_the_evaluator_and_its_weights() {
    let dir = std::env::temp_dir().join(format!("c4-agents-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("features.json");
    std::fs::write(
        &path,
        r#"{"format":"connect4-weights","version":1,"eval":"features","weights":{"rising":9}}"#,
    )
    .unwrap();
    let spec = format!("alphabeta:depth=2,weights={}", path.display());
    let from_file = agent(&spec);
    let same = agent("alphabeta:depth=2,eval=features,w.rising=9");
    let ps = positions(Rules::STANDARD, 40, 21);
    let moves = |mut a: Box<dyn Agent>| {
        ps.iter()
            .map(|p| {
                let m = a.choose(p, &Limits::none(), None);
                (m.column, m.value)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(moves(from_file), moves(same));
    let e = session_player(&format!("{spec},eval=windows"))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("not of eval=windows"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory for one test's files.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("c4-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_trained_q_model_loads_back_plays_and_learns() {
    use connect4::agents::qlearning::QModel;
    use connect4::agents::qlearning::model::Hyperparameters;
    use connect4::lab::train::{TrainOptions, train};
    let options = TrainOptions {
        rules: Rules::STANDARD,
        hyper: Hyperparameters {
            episodes: 3000,
            opponent: "greedy".into(),
            explore: "ucb:c=1.4".into(),
            gamma: 0.95,
            alpha: 0.2,
            seed: 5,
        },
        window: 500,
    };
    let mut seen = Vec::new();
    let (model, curve) = train(&options, |_, done| seen.push(done)).unwrap();
    assert_eq!(seen, [500, 1000, 1500, 2000, 2500, 3000]);
    assert_eq!(curve.len(), 6);
    assert!(
        curve[5].win_rate > curve[0].win_rate + 0.2,
        "learning against a fixed opponent shows: {curve:?}"
    );
    let dir = temp_dir("qmodel");
    let path = dir.join("q.json");
    model.save(&path).unwrap();
    assert_eq!(QModel::load(&path).unwrap(), model);
    // Trained again with the same seed: the same file.
    let (again, _) = train(&options, |_, _| {}).unwrap();
    again.save(&dir.join("q2.json")).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(dir.join("q2.json")).unwrap()
    );

    let mut q = agent(&format!("qlearning:model={}", path.display()));
    for rules in [Rules::STANDARD, Rules::new(7, 7, 4).unwrap()] {
        for p in positions(rules, 100, 17) {
            assert!(p.can_play(q.choose(&p, &Limits::none(), None).column));
        }
    }
    assert!(q.check_rules(Rules::STANDARD).is_ok());
    let e = q
        .check_rules(Rules::new(7, 7, 4).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("trained on 7x6x4") && e.contains("7x7x4"), "{e}");
    let (wins, games) = match_score(
        &format!("qlearning:model={}", path.display()),
        "random:seed=1",
        10,
    );
    assert!(wins >= 19, "qlearning won {wins} of {games} against random");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_q_models_are_errors_that_say_why() {
    let dir = temp_dir("qbad");
    let path = dir.join("q.json");
    let spec = format!("qlearning:model={}", path.display());
    let err = |text: &str| {
        std::fs::write(&path, text).unwrap();
        session_player(&spec).err().unwrap().to_string()
    };
    let good_head = r#""format":"connect4-qlearning","version":1,"hyperparameters":{"episodes":1,"opponent":"greedy","explore":"ucb:c=1","gamma":0.9,"alpha":0.1,"seed":0}"#;
    let cases = [
        ("{\"format\":", "not a model file"),
        (
            r#"{"format":"connect4-weights","version":1}"#,
            "not a model file",
        ),
        (
            &format!(
                r#"{{{good_head},"rules":"7x6x4","states":2,"table":{{"5":[0,0,0,0,0,0,0]}}}}"#
            ),
            "says 2 states but holds 1",
        ),
        (
            &format!(r#"{{{good_head},"rules":"7x6x4","states":1,"table":{{"5":[0,0]}}}}"#),
            "state 5 has 2 values",
        ),
        (
            &format!(r#"{{{good_head},"rules":"99x6x4","states":0,"table":{{}}}}"#),
            "rules '99x6x4'",
        ),
        (
            &format!(r#"{{{good_head},"rules":"7x6x4","states":0,"table":{{}}}}"#)
                .replace("\"version\":1", "\"version\":2"),
            "version 2 is not supported",
        ),
    ];
    for (text, why) in cases {
        let e = err(text);
        assert!(e.contains("q.json") && e.contains(why), "{text}\n-> {e}");
    }
    std::fs::remove_file(&path).unwrap();
    let e = session_player(&spec).err().unwrap().to_string();
    assert!(e.contains("q.json") && e.contains("No such file"), "{e}");
    let e = session_player("qlearning").err().unwrap().to_string();
    assert!(e.contains("a model file is required"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn clock_every_agent_answers_at_once_when_stopped_and_keeps_a_time_limit() {
    use std::time::{Duration, Instant};
    let deep = [
        "minimax:depth=12",
        "alphabeta:depth=20",
        "expectimax:depth=12",
        "mcts:simulations=100000000",
        "solver",
    ];
    let p = Position::new(Rules::STANDARD);
    for spec in SPECS.iter().chain(&deep) {
        let mut a = connect4::agents::from_spec(spec).unwrap();
        let stop = Arc::new(AtomicBool::new(true));
        let t = Instant::now();
        let m = a.choose(&p, &Limits::none(), Some(stop));
        assert!(p.can_play(m.column), "{spec}");
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{spec} ignored the stop flag"
        );
        let t = Instant::now();
        let m = a.choose(&p, &Limits::time(Duration::from_millis(30)), None);
        assert!(p.can_play(m.column), "{spec}");
        // Generous: the test checks that the limit is kept, not the speed.
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{spec} ignored a 30 ms limit"
        );
    }
}
