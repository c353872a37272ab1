//! JSON for the reader (analysis.json, `simulate --json`): pretty-printed like
//! `serde_json::to_string_pretty`, every number in its shortest round-trip form
//! ([`crate::error::number_text`]: `8.79e-5`, not `0.0000879`). Non-finite numbers are `null`,
//! as serde_json writes them.

use crate::error::number_text;
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter, Serializer};
use std::io::{self, Write};

/// serde_json's pretty layout with numbers written by [`number_text`].
struct ShortestNumbers<'a>(PrettyFormatter<'a>);

impl Formatter for ShortestNumbers<'_> {
    fn write_f64<W: ?Sized + Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(number_text(value).as_bytes())
    }
    fn write_f32<W: ?Sized + Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }
    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }
    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }
    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }
    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

/// `value` as pretty JSON with shortest numbers; empty if it does not serialise (a map with
/// non-string keys), as `serde_json::to_string_pretty(..).unwrap_or_default()` was.
pub(crate) fn pretty<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    let mut serializer =
        Serializer::with_formatter(&mut out, ShortestNumbers(PrettyFormatter::new()));
    match value.serialize(&mut serializer) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_shortest_and_the_layout_is_serde_json_pretty() {
        let value = serde_json::json!({"a": [0.0000879, 1e21, 77.0, 3], "b": {"c": f64::NAN}});
        let text = pretty(&value);
        assert!(text.contains("8.79e-5"), "{text}");
        assert!(text.contains("1e21"), "{text}");
        assert!(!text.contains("0.0000879"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["a"][0].as_f64(), Some(0.0000879));
        assert_eq!(back["a"][2].as_f64(), Some(77.0));
        assert!(back["b"]["c"].is_null());
        let layout = serde_json::to_string_pretty(&serde_json::json!({"x": [1, 2]})).unwrap();
        assert_eq!(pretty(&serde_json::json!({"x": [1, 2]})), layout);
    }
}
