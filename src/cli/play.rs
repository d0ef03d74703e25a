//! `connect4 play`: a game in the terminal against any agent.
//!
//! The board is drawn with colours when stdout is a terminal and `NO_COLOR`
//! is not set; columns are numbered under it. The human types a column
//! number, `u` to take back their last move and the reply to it, `h` for a
//! hint (the solver's score of every column), or `q` to quit. Bad input
//! says why and asks again; the end of input quits.
//!
//! The opponent is the engine the protocol drives ([`Engine`]), set to the
//! agent asked for: its moves and its hints are the engine's `go` and
//! `analyze`.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use connect4::engine::{DEFAULT_HASH_MB, Engine, GoRequest, Report, SearchScore};
use connect4::grid::to_rows;
use connect4::score::end_ply;
use connect4::{Game, Player, Rules, Status};

/// Arguments of `play`.
#[derive(clap::Args)]
pub struct Args {
    /// The opponent, as an agent spec.
    #[arg(long, default_value = "solver")]
    agent: String,
    /// Whether you move first or second.
    #[arg(long, default_value = "first", value_parser = ["first", "second"])]
    human: String,
    /// Board as COLUMNSxROWSxINAROW.
    #[arg(long, default_value = "7x6x4")]
    rules: Rules,
    /// Time per engine move, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
    /// Time for a hint, in milliseconds.
    #[arg(long, default_value_t = 2000)]
    hint_time: u64,
}

/// The terminal game's state.
struct Play<'a, W: Write> {
    out: &'a mut W,
    colour: bool,
    game: Game,
    human: Player,
    /// The engine, playing the agent `agent`.
    engine: Engine,
    agent: String,
    movetime: Duration,
    hint_time: Duration,
}

/// Runs a game on the process's terminal (or pipes).
pub fn run(args: &Args) -> Result<ExitCode> {
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    play(args, &mut stdin.lock(), &mut stdout.lock(), colour)
}

/// Runs a game reading `input` and writing `out`.
pub fn play(
    args: &Args,
    input: &mut impl BufRead,
    out: &mut impl Write,
    colour: bool,
) -> Result<ExitCode> {
    let mut engine = Engine::new(DEFAULT_HASH_MB);
    if let Err(e) = engine.set_agent(&args.agent) {
        bail!("--agent: {e}");
    }
    engine.new_game(args.rules, None);
    if let Err(why) = engine.check_agent() {
        bail!("--agent: {why}");
    }
    let mut play = Play {
        out,
        colour,
        game: Game::new(args.rules),
        human: if args.human == "first" {
            Player::First
        } else {
            Player::Second
        },
        engine,
        agent: args.agent.clone(),
        movetime: Duration::from_millis(args.movetime),
        hint_time: Duration::from_millis(args.hint_time),
    };
    play.run(input)?;
    Ok(ExitCode::SUCCESS)
}

impl<W: Write> Play<'_, W> {
    fn run(&mut self, input: &mut impl BufRead) -> Result<()> {
        let cols = self.game.rules().columns();
        writeln!(
            self.out,
            "You play {} against {}. Enter a column (1-{cols}), u to undo, h for a hint, q to quit.",
            self.stone_name(self.human),
            self.agent
        )?;
        let mut shown: Option<Vec<u32>> = None;
        loop {
            if self.game.side_to_move() != self.human && self.game.status() == Status::Ongoing {
                self.engine_move()?;
            }
            // Draw the board when it changed, not after every bad input.
            if shown.as_deref() != Some(self.game.moves()) {
                self.draw()?;
                shown = Some(self.game.moves().to_vec());
            }
            if self.finished()? {
                return Ok(());
            }
            write!(self.out, "your move> ")?;
            self.out.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                writeln!(self.out)?;
                return Ok(());
            }
            match line.trim() {
                "q" | "quit" => return Ok(()),
                "u" | "undo" => self.undo()?,
                "h" | "hint" => self.hint()?,
                "" => {}
                text => match text.parse::<i64>() {
                    Ok(c) => {
                        if let Err(e) = self.game.play(c) {
                            writeln!(self.out, "{e}")?;
                        }
                    }
                    Err(_) => writeln!(
                        self.out,
                        "'{text}' is not a move: enter a column from 1 to {cols}, u, h or q"
                    )?,
                },
            }
        }
    }

    /// Lets the engine move (its `go`) and shows its thinking.
    fn engine_move(&mut self) -> Result<()> {
        self.engine.set_game(self.game.clone());
        let (sent, answer) = mpsc::channel();
        let request = GoRequest {
            movetime: Some(self.movetime),
            ..GoRequest::default()
        };
        let done = Box::new(move |r: Option<Report>| _ = sent.send(r));
        self.engine.go(&request, Box::new(|_| {}), done);
        let r = answer
            .recv()
            .context("the engine stopped")?
            .context("the engine had no move")?;
        self.game
            .play(i64::from(r.best) + 1)
            .expect("the engine plays legal moves");
        let value = match r.agent_value {
            Some(v) if v != r.score.value => format!("{:+}, its own value {v:+}", r.score.value),
            // An agent without a value of its own (random, greedy).
            None if !self.engine.searcher_answers() => "-".to_string(),
            _ => format!("{:+}", r.score.value),
        };
        writeln!(
            self.out,
            "engine plays {} (depth {}, score {value}, {} nodes, {:.2} s)",
            r.best + 1,
            r.depth,
            r.nodes,
            r.time.as_secs_f64()
        )?;
        Ok(())
    }

    /// Takes back the human's last move and the reply to it.
    fn undo(&mut self) -> Result<()> {
        let moves = self.game.moves().to_vec();
        // The human's last move is the last one at a ply of their colour.
        let human_parity = if self.human == Player::First { 0 } else { 1 };
        let Some(last) = (0..moves.len()).rev().find(|i| i % 2 == human_parity) else {
            writeln!(self.out, "nothing to undo")?;
            return Ok(());
        };
        let mut game = Game::new(self.game.rules());
        for &c in &moves[..last] {
            game.play(i64::from(c) + 1)
                .expect("a replay of legal moves");
        }
        self.game = game;
        writeln!(self.out, "took back {} move(s)", moves.len() - last)?;
        Ok(())
    }

    /// Shows the engine's score of every column (its `analyze`).
    fn hint(&mut self) -> Result<()> {
        let p = *self.game.position();
        if p.is_over() {
            return Ok(());
        }
        self.engine.set_game(self.game.clone());
        let (sent, answer) = mpsc::channel();
        let request = GoRequest {
            movetime: Some(self.hint_time),
            ..GoRequest::default()
        };
        self.engine
            .analyze(&request, Box::new(move |scores| _ = sent.send(scores)));
        let scores = answer.recv().context("the engine stopped")?;
        let mut text = String::from("hint:");
        for (c, s) in scores {
            text.push_str(&format!(" {}: {}", c + 1, describe(&p, s)));
            text.push(';');
        }
        text.pop();
        writeln!(self.out, "{text}")?;
        Ok(())
    }

    /// Prints the result if the game is over.
    fn finished(&mut self) -> Result<bool> {
        let text = match self.game.status() {
            Status::Ongoing => return Ok(false),
            Status::Draw => "draw: the board is full".to_string(),
            Status::Won(w) if w == self.human => format!("you win ({})", self.game.move_string()),
            Status::Won(_) => format!("the engine wins ({})", self.game.move_string()),
        };
        writeln!(self.out, "{text}")?;
        Ok(true)
    }

    /// The human's stone and turn, for the greeting.
    fn stone_name(&self, p: Player) -> String {
        let turn = match p {
            Player::First => "moving first",
            Player::Second => "moving second",
        };
        format!("{} ({turn})", self.stone(p))
    }

    /// A stone as drawn.
    fn stone(&self, p: Player) -> &'static str {
        match (p, self.colour) {
            (Player::First, false) => "X",
            (Player::Second, false) => "O",
            (Player::First, true) => "\x1b[1;31mX\x1b[0m",
            (Player::Second, true) => "\x1b[1;33mO\x1b[0m",
        }
    }

    fn draw(&mut self) -> Result<()> {
        let mut text = String::new();
        for row in to_rows(self.game.position()) {
            let cells: Vec<&str> = row
                .iter()
                .map(|v| match v {
                    1 => self.stone(Player::First),
                    2 => self.stone(Player::Second),
                    _ => ".",
                })
                .collect();
            text.push_str(&format!("  {}\n", cells.join(" ")));
        }
        let numbers: Vec<String> = (1..=self.game.rules().columns())
            .map(|c| c.to_string())
            .collect();
        text.push_str(&format!("  {}\n", numbers.join(" ")));
        write!(self.out, "{text}")?;
        Ok(())
    }
}

/// A score for people: who wins and when, or a heuristic estimate.
fn describe(p: &connect4::Position, s: SearchScore) -> String {
    if !s.exact {
        return match s.outcome {
            Some(o) => format!("{o} (proven, distance not yet known)"),
            None => format!("about {:+}", s.value),
        };
    }
    match (s.value, end_ply(p, s.value)) {
        (0, _) => "draw".into(),
        (v, Some(end)) => {
            let plies = end - p.moves_played();
            format!("{} in {} plies", if v > 0 { "win" } else { "loss" }, plies)
        }
        (v, None) => (if v > 0 { "win" } else { "loss" }).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_only_when_asked() {
        let args = Args {
            agent: "greedy".into(),
            human: "first".into(),
            rules: Rules::STANDARD,
            movetime: 10,
            hint_time: 10,
        };
        let run = |colour| {
            let mut out = Vec::new();
            play(&args, &mut "4\nq\n".as_bytes(), &mut out, colour).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert!(run(true).contains("\x1b[1;31mX\x1b[0m"));
        assert!(!run(false).contains('\x1b'));
    }

    /// The game as the engine plays it: its moves with the values the
    /// protocol reports, its hints its `analyze`, an agent without a value
    /// shown without one.
    #[test]
    fn the_engine_plays_and_hints_as_the_protocol_s_engine_does() {
        let game = |agent: &str, input: &str| {
            let args = Args {
                agent: agent.into(),
                human: "second".into(),
                rules: "5x4x4".parse().unwrap(),
                movetime: 50,
                hint_time: 200,
            };
            let mut out = Vec::new();
            play(&args, &mut input.as_bytes(), &mut out, false).unwrap();
            String::from_utf8(out).unwrap()
        };
        let solver = game("solver", "h\nq\n");
        // Which of the five drawing columns it plays depends on how deep a
        // loaded machine lets it search in 50 ms; that it reports a depth
        // and a value does not.
        let played = solver
            .lines()
            .find(|l| l.starts_with("engine plays "))
            .unwrap();
        let column = played["engine plays ".len()..].split(' ').next().unwrap();
        assert!(matches!(column, "1" | "2" | "3" | "4" | "5"), "{played}");
        assert!(
            played.contains(" (depth ") && played.contains(", score "),
            "{played}"
        );
        let hint = solver.lines().find(|l| l.contains("hint:")).unwrap();
        assert_eq!(hint.split(';').count(), 5, "{hint}");
        let greedy = game("greedy", "q\n");
        assert!(greedy.contains("score -,"), "{greedy}");
        let alphabeta = game("alphabeta:depth=2", "q\n");
        assert!(!alphabeta.contains("score -,"), "{alphabeta}");
    }
}
