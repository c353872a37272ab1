//! Standard output for the command line.

/// Write to standard output; a closed pipe (`| head`) or a full device is an error with one
/// line, not a panic.
pub fn write_stdout(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| format!("cannot write to standard output: {e}"))
}
