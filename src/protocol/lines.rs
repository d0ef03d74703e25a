//! Reading request lines with a length limit and without unbounded buffering.

use std::io::{self, BufRead};

/// One read from the input.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line, without its `\n` or `\r\n`.
    Text(Vec<u8>),
    /// A line longer than the limit (not counting its ending); its bytes
    /// were skipped, not kept.
    TooLong {
        /// How many bytes it had, ending included.
        bytes: usize,
    },
    /// End of input.
    Eof,
}

/// Splits input into lines of at most `limit` bytes, not counting the
/// `\n` or `\r\n` that ends them.
pub struct LineReader<R> {
    input: R,
    limit: usize,
}

impl<R: BufRead> LineReader<R> {
    /// Reads lines of at most `limit` bytes from `input`.
    pub fn new(input: R, limit: usize) -> Self {
        LineReader { input, limit }
    }

    /// The next line. A final line without a newline still counts.
    pub fn next_line(&mut self) -> io::Result<Line> {
        let mut line = Vec::new();
        // Room for a `\r` before the `\n`, which does not count.
        let keep = self.limit + 1;
        let mut bytes = 0;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(if bytes == 0 {
                    Line::Eof
                } else {
                    self.judge(line, bytes)
                });
            }
            let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], Some(i)),
                None => (buf, None),
            };
            if line.len() + chunk.len() <= keep {
                line.extend_from_slice(chunk);
            } else {
                // Over the limit: keep one byte too many as the mark, not more.
                line.resize(keep + 1, 0);
            }
            let used = found.map_or(buf.len(), |i| i + 1);
            bytes += used;
            self.input.consume(used);
            if found.is_some() {
                return Ok(self.judge(line, bytes));
            }
        }
    }

    /// The line read, or `TooLong` if it is over the limit without its `\r`.
    fn judge(&self, mut line: Vec<u8>, bytes: usize) -> Line {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.len() > self.limit {
            Line::TooLong { bytes }
        } else {
            Line::Text(line)
        }
    }
}

/// At most `max_chars` characters of `text`, with `...` if it was longer:
/// for quoting input or replies in messages.
pub fn shorten(text: &str, max_chars: usize) -> String {
    let mut chars = text.chars();
    let mut s: String = chars.by_ref().take(max_chars).collect();
    if chars.next().is_some() {
        s.push_str("...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_limits_and_strips_crlf() {
        let input: &[u8] = b"ab\r\ncdefgh\nij\n\nlast";
        let mut r = LineReader::new(std::io::BufReader::with_capacity(2, input), 4);
        assert_eq!(r.next_line().unwrap(), Line::Text(b"ab".to_vec()));
        assert_eq!(r.next_line().unwrap(), Line::TooLong { bytes: 7 });
        assert_eq!(r.next_line().unwrap(), Line::Text(b"ij".to_vec()));
        assert_eq!(r.next_line().unwrap(), Line::Text(Vec::new()));
        assert_eq!(r.next_line().unwrap(), Line::Text(b"last".to_vec()));
        assert_eq!(r.next_line().unwrap(), Line::Eof);
    }

    #[test]
    fn the_line_ending_does_not_count() {
        let input: &[u8] = b"abcd\r\nabcd\nabcde\r\n";
        let mut r = LineReader::new(std::io::BufReader::with_capacity(3, input), 4);
        assert_eq!(r.next_line().unwrap(), Line::Text(b"abcd".to_vec()));
        assert_eq!(r.next_line().unwrap(), Line::Text(b"abcd".to_vec()));
        assert_eq!(r.next_line().unwrap(), Line::TooLong { bytes: 7 });
        assert_eq!(r.next_line().unwrap(), Line::Eof);
    }

    #[test]
    fn shorten_marks_what_it_cut() {
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcd", 3), "abc...");
        assert_eq!(shorten("\u{e9}\u{e9}\u{e9}\u{e9}", 2), "\u{e9}\u{e9}...");
    }
}
