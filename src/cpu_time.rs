//! The CPU time this process has used, for figures such as "arena CPU per
//! move" and "book build CPU time".

/// User plus system CPU time of this process so far, in seconds, from
/// `/proc/self/stat` (Linux); `None` elsewhere or if it cannot be read.
pub fn own_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime: fields 14 and 15 of the file, 11 and 12 after ')'.
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // Linux reports in clock ticks of 1/100 s on every common build.
    Some(ticks / 100.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn grows_with_work() {
        let Some(before) = super::own_seconds() else {
            return; // not Linux
        };
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed().as_millis() < 50 {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        assert!(x > 0);
        assert!(super::own_seconds().unwrap() >= before);
    }
}
