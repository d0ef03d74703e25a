//! Reading request lines with a length limit and without unbounded buffering.

use std::io::{self, BufRead};

/// One read from the input.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line, without its `\n` or `\r\n`.
    Text(Vec<u8>),
    /// A line longer than the limit; its bytes were skipped, not kept.
    TooLong,
    /// End of input.
    Eof,
}

/// Splits input into lines of at most `limit` bytes.
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
        let mut too_long = false;
        let mut read_any = false;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(match (read_any, too_long) {
                    (false, _) => Line::Eof,
                    (true, true) => Line::TooLong,
                    (true, false) => Line::Text(strip_cr(line)),
                });
            }
            read_any = true;
            let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], Some(i)),
                None => (buf, None),
            };
            if !too_long {
                if line.len() + chunk.len() > self.limit {
                    too_long = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            let used = found.map_or(buf.len(), |i| i + 1);
            self.input.consume(used);
            if found.is_some() {
                return Ok(if too_long {
                    Line::TooLong
                } else {
                    Line::Text(strip_cr(line))
                });
            }
        }
    }
}

fn strip_cr(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_limits_and_strips_crlf() {
        let input: &[u8] = b"ab\r\ncdefgh\nij\n\nlast";
        let mut r = LineReader::new(std::io::BufReader::with_capacity(2, input), 4);
        assert_eq!(r.next_line().unwrap(), Line::Text(b"ab".to_vec()));
        assert_eq!(r.next_line().unwrap(), Line::TooLong);
        assert_eq!(r.next_line().unwrap(), Line::Text(b"ij".to_vec()));
        assert_eq!(r.next_line().unwrap(), Line::Text(Vec::new()));
        assert_eq!(r.next_line().unwrap(), Line::Text(b"last".to_vec()));
        assert_eq!(r.next_line().unwrap(), Line::Eof);
    }
}
