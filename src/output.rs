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

/// A command-line parser's error (clap's several lines: the message, the arguments it names
/// indented below it, a usage block) as one line: the message and the named arguments, up to
/// the first blank line.
pub fn one_line_error(text: &str) -> String {
    let line = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    if line.is_empty() {
        "invalid command line".to_string()
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    use super::one_line_error;

    #[test]
    fn clap_errors_keep_the_arguments_they_name() {
        let text = "error: the following required arguments were not provided:\n  <SYSTEM>\n\nUsage: rigid-limit simulate --set <KEY=VALUE> <SYSTEM>\n";
        assert_eq!(
            one_line_error(text),
            "error: the following required arguments were not provided: <SYSTEM>"
        );
        assert_eq!(one_line_error(""), "invalid command line");
    }
}
