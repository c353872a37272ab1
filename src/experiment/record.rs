//! Typed records: a serde struct whose fields are columns of a table, in field order.
//!
//! A model measures into a plain struct (`#[derive(Serialize, Deserialize, Default)]`) instead of
//! writing text cells by hand: [`cells`] turns one into the (column, text) cells of a row, numbers
//! in their shortest round-trip form ([`crate::error::number_text`]) and lists of numbers
//! space-separated; [`columns`] lists the columns a record type fills; [`from_row`] reads one back
//! from a row by column name, so an analysis asks for `record.t_stick`, not `row.number("t_stick")`.
//!
//! Fields are scalars (`f64`, integers, `bool`, `String`, unit enum variants), `Option`s of them
//! (`None` is an empty cell) or vectors of numbers. A nested struct is refused: a row is flat.

use super::rows::Cells;
use super::table::Row;
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::ser::{self, Impossible, Serialize};

/// A record that does not fit a row, or a cell that does not fit its field.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{0}")]
pub struct RecordError(String);

impl ser::Error for RecordError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        RecordError(msg.to_string())
    }
}

impl de::Error for RecordError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        RecordError(msg.to_string())
    }
}

/// The cells of `record`, in field order; a `None` field is left out (an empty cell).
pub fn cells<T: Serialize>(record: &T) -> Result<Cells, RecordError> {
    Ok(fields(record)?
        .into_iter()
        .filter_map(|(column, cell)| cell.map(|c| (column, c.into_text())))
        .collect())
}

/// [`cells`] set into `row` in field order, each number written in place in its written form
/// (`Fields::insert_number`): a run's row is built without a string per number, and its CSV
/// line copies the numbers instead of reading them back.
pub(crate) fn write_cells<T: Serialize>(
    record: &T,
    row: &mut super::table::Fields,
) -> Result<(), RecordError> {
    for (column, cell) in fields(record)? {
        match cell {
            Some(Cell::Number(x)) => row.insert_number(column, x),
            Some(Cell::Text(t)) => row.insert(column, t),
            None => None,
        };
    }
    Ok(())
}

/// One field's cell: a number (written by [`crate::error::write_number`]) or a text.
enum Cell {
    Number(f64),
    Text(String),
}

impl Cell {
    fn into_text(self) -> String {
        match self {
            Cell::Number(x) => crate::error::number_text(x),
            Cell::Text(t) => t,
        }
    }
}

/// The columns a record type fills, in field order.
pub fn columns<T: Serialize + Default>() -> Vec<&'static str> {
    fields(&T::default())
        .map(|f| f.into_iter().map(|(column, _)| column).collect())
        .unwrap_or_default()
}

/// Read a record back from the cells of `row` by column name.
pub fn from_row<T: DeserializeOwned>(row: &Row) -> Result<T, RecordError> {
    T::deserialize(RowDeserializer { row })
}

type Fields = Vec<(&'static str, Option<Cell>)>;

fn fields<T: Serialize>(record: &T) -> Result<Fields, RecordError> {
    record.serialize(RecordSerializer)
}

/// Serializes a struct into its (field, text) pairs.
struct RecordSerializer;

/// Serializes one field's value into its cell (`None`: an empty cell).
struct CellSerializer;

/// Collects a struct's fields.
struct FieldCollector(Fields);

/// Collects a list of values, joined by spaces.
struct ListCollector(Vec<String>);

fn not_flat(what: &str) -> RecordError {
    RecordError(format!(
        "a record's field must be a number, a flag, a text or a list of numbers, not {what}"
    ))
}

macro_rules! refuse {
    ($($method:ident($($arg:ty),*) -> $ok:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ok, RecordError> {
            Err(not_flat(stringify!($method)))
        })*
    };
}

/// Serializer methods that hand a value on to the method of its widest type (`i64`, `u64`,
/// `f64`), where it becomes a cell.
macro_rules! widen {
    ($($method:ident($ty:ty) -> $wide:ident;)*) => {
        $(fn $method(self, v: $ty) -> Result<Self::Ok, RecordError> {
            self.$wide(v.into())
        })*
    };
}

/// Serializer methods that write the value as the text of its `Display`.
macro_rules! as_text {
    ($($method:ident($ty:ty);)*) => {
        $(fn $method(self, v: $ty) -> Result<Self::Ok, RecordError> {
            Ok(Some(Cell::Text(v.to_string())))
        })*
    };
}

/// The newtype methods of both serializers: a newtype struct is its value, an enum variant
/// with data is refused.
macro_rules! newtypes {
    () => {
        fn serialize_newtype_struct<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            value: &T,
        ) -> Result<Self::Ok, RecordError> {
            value.serialize(self)
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, RecordError> {
            Err(not_flat("an enum with data"))
        }
    };
}

/// The sequence traits of [`ListCollector`]: a list and a tuple are collected alike.
macro_rules! collect_list {
    ($($list:path),*) => {
        $(impl $list for ListCollector {
            type Ok = Option<Cell>;
            type Error = RecordError;
            fn serialize_element<T: ?Sized + Serialize>(
                &mut self,
                value: &T,
            ) -> Result<(), RecordError> {
                self.push(value)
            }
            fn end(self) -> Result<Option<Cell>, RecordError> {
                Ok(Some(Cell::Text(self.0.join(" "))))
            }
        })*
    };
}

impl ser::Serializer for RecordSerializer {
    type Ok = Fields;
    type Error = RecordError;
    type SerializeSeq = Impossible<Fields, RecordError>;
    type SerializeTuple = Impossible<Fields, RecordError>;
    type SerializeTupleStruct = Impossible<Fields, RecordError>;
    type SerializeTupleVariant = Impossible<Fields, RecordError>;
    type SerializeMap = Impossible<Fields, RecordError>;
    type SerializeStruct = FieldCollector;
    type SerializeStructVariant = Impossible<Fields, RecordError>;

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<FieldCollector, RecordError> {
        Ok(FieldCollector(Vec::with_capacity(len)))
    }
    refuse! {
        serialize_bool(bool) -> Fields;
        serialize_i8(i8) -> Fields;
        serialize_i16(i16) -> Fields;
        serialize_i32(i32) -> Fields;
        serialize_i64(i64) -> Fields;
        serialize_u8(u8) -> Fields;
        serialize_u16(u16) -> Fields;
        serialize_u32(u32) -> Fields;
        serialize_u64(u64) -> Fields;
        serialize_f32(f32) -> Fields;
        serialize_f64(f64) -> Fields;
        serialize_char(char) -> Fields;
        serialize_str(&str) -> Fields;
        serialize_bytes(&[u8]) -> Fields;
        serialize_none() -> Fields;
        serialize_unit() -> Fields;
        serialize_unit_struct(&'static str) -> Fields;
        serialize_unit_variant(&'static str, u32, &'static str) -> Fields;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Fields, RecordError> {
        Err(not_flat("an option"))
    }
    newtypes!();
}

impl ser::SerializeStruct for FieldCollector {
    type Ok = Fields;
    type Error = RecordError;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), RecordError> {
        let text = value
            .serialize(CellSerializer)
            .map_err(|e| RecordError(format!("field {key}: {e}")))?;
        self.0.push((key, text));
        Ok(())
    }
    fn end(self) -> Result<Fields, RecordError> {
        Ok(self.0)
    }
}

impl ser::Serializer for CellSerializer {
    type Ok = Option<Cell>;
    type Error = RecordError;
    type SerializeSeq = ListCollector;
    type SerializeTuple = ListCollector;
    type SerializeTupleStruct = Impossible<Option<Cell>, RecordError>;
    type SerializeTupleVariant = Impossible<Option<Cell>, RecordError>;
    type SerializeMap = Impossible<Option<Cell>, RecordError>;
    type SerializeStruct = Impossible<Option<Cell>, RecordError>;
    type SerializeStructVariant = Impossible<Option<Cell>, RecordError>;

    widen! {
        serialize_i8(i8) -> serialize_i64;
        serialize_i16(i16) -> serialize_i64;
        serialize_i32(i32) -> serialize_i64;
        serialize_u8(u8) -> serialize_u64;
        serialize_u16(u16) -> serialize_u64;
        serialize_u32(u32) -> serialize_u64;
        serialize_f32(f32) -> serialize_f64;
    }
    as_text! {
        serialize_bool(bool);
        serialize_i64(i64);
        serialize_u64(u64);
        serialize_char(char);
        serialize_str(&str);
    }
    fn serialize_f64(self, v: f64) -> Result<Self::Ok, RecordError> {
        Ok(Some(Cell::Number(v)))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok, RecordError> {
        Err(not_flat("bytes"))
    }
    fn serialize_none(self) -> Result<Self::Ok, RecordError> {
        Ok(None)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Self::Ok, RecordError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Self::Ok, RecordError> {
        Ok(None)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok, RecordError> {
        Ok(None)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Self::Ok, RecordError> {
        Ok(Some(Cell::Text(variant.to_string())))
    }
    newtypes!();
    fn serialize_seq(self, len: Option<usize>) -> Result<ListCollector, RecordError> {
        Ok(ListCollector(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<ListCollector, RecordError> {
        self.serialize_seq(Some(len))
    }
    refuse! {
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

impl ListCollector {
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), RecordError> {
        match value.serialize(CellSerializer)?.map(Cell::into_text) {
            Some(text) if !text.contains(' ') && !text.is_empty() => {
                self.0.push(text);
                Ok(())
            }
            _ => Err(not_flat("a list of texts or of empty values")),
        }
    }
}

collect_list!(ser::SerializeSeq, ser::SerializeTuple);

/// Reads a struct from a row, field by field.
struct RowDeserializer<'a> {
    row: &'a Row,
}

impl<'de> de::Deserializer<'de> for RowDeserializer<'_> {
    type Error = RecordError;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, RecordError> {
        Err(RecordError(
            "a record is read from a row as a struct".into(),
        ))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, RecordError> {
        visitor.visit_map(FieldAccess {
            row: self.row,
            fields: fields.iter(),
            current: "",
        })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

struct FieldAccess<'a> {
    row: &'a Row,
    fields: std::slice::Iter<'static, &'static str>,
    current: &'static str,
}

impl<'de> de::MapAccess<'de> for FieldAccess<'_> {
    type Error = RecordError;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, RecordError> {
        match self.fields.next() {
            Some(&field) => {
                self.current = field;
                seed.deserialize(field.into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, RecordError> {
        let column = self.current;
        seed.deserialize(CellDeserializer {
            text: self.row.text(column),
        })
        .map_err(|e| RecordError(format!("column {column}: {e}")))
    }
}

/// Reads one field from its cell's text.
struct CellDeserializer<'a> {
    text: &'a str,
}

impl CellDeserializer<'_> {
    fn parse<T: std::str::FromStr>(&self, what: &str) -> Result<T, RecordError> {
        self.text
            .parse()
            .map_err(|_| RecordError(format!("'{}' is not {what}", self.text)))
    }
}

macro_rules! parsed {
    ($($method:ident => $visit:ident: $ty:ty, $what:expr;)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, RecordError> {
            visitor.$visit(self.parse::<$ty>($what)?)
        })*
    };
}

impl<'de> de::Deserializer<'de> for CellDeserializer<'_> {
    type Error = RecordError;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, RecordError> {
        visitor.visit_str(self.text)
    }
    parsed! {
        deserialize_bool => visit_bool: bool, "true or false";
        deserialize_i8 => visit_i64: i64, "an integer";
        deserialize_i16 => visit_i64: i64, "an integer";
        deserialize_i32 => visit_i64: i64, "an integer";
        deserialize_i64 => visit_i64: i64, "an integer";
        deserialize_u8 => visit_u64: u64, "a count";
        deserialize_u16 => visit_u64: u64, "a count";
        deserialize_u32 => visit_u64: u64, "a count";
        deserialize_u64 => visit_u64: u64, "a count";
        deserialize_f32 => visit_f64: f64, "a number";
        deserialize_f64 => visit_f64: f64, "a number";
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, RecordError> {
        if self.text.is_empty() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, RecordError> {
        let cells = self
            .text
            .split(' ')
            .filter(|t| !t.is_empty())
            .map(|text| CellDeserializer { text });
        visitor.visit_seq(de::value::SeqDeserializer::new(cells))
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, RecordError> {
        visitor.visit_enum(self.text.into_deserializer())
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, RecordError> {
        visitor.visit_unit()
    }
    serde::forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit_struct newtype_struct tuple
        tuple_struct map struct identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, RecordError> for CellDeserializer<'_> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum Outcome {
        #[default]
        Lifted,
        Stuck,
    }

    #[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
    struct Measures {
        n_events: usize,
        t_stick: f64,
        separated: bool,
        mode_sequence: String,
        u_out: Option<f64>,
        q_end: Vec<f64>,
        outcome: Outcome,
    }

    fn sample() -> Measures {
        Measures {
            n_events: 3,
            t_stick: 1e-8,
            separated: true,
            mode_sequence: "slide+>stick>free".into(),
            u_out: None,
            q_end: vec![0.25, -3.1e-18, 1e20],
            outcome: Outcome::Stuck,
        }
    }

    #[test]
    fn a_record_becomes_cells_in_field_order_with_shortest_numbers() {
        let cells = cells(&sample()).unwrap();
        let expected: Cells = vec![
            ("n_events", "3".into()),
            ("t_stick", "1e-8".into()),
            ("separated", "true".into()),
            ("mode_sequence", "slide+>stick>free".into()),
            ("q_end", "0.25 -3.1e-18 1e20".into()),
            ("outcome", "stuck".into()),
        ];
        assert_eq!(cells, expected);
        assert_eq!(
            columns::<Measures>(),
            [
                "n_events",
                "t_stick",
                "separated",
                "mode_sequence",
                "u_out",
                "q_end",
                "outcome"
            ]
        );
    }

    #[test]
    fn a_record_reads_back_from_its_row() {
        let row = Row {
            point_id: 0,
            fields: cells(&sample()).unwrap().into_iter().collect(),
        };
        assert_eq!(from_row::<Measures>(&row).unwrap(), sample());
        let mut bad = row.clone();
        bad.fields.insert("t_stick", "soon".into());
        assert_eq!(
            from_row::<Measures>(&bad).unwrap_err().to_string(),
            "column t_stick: 'soon' is not a number"
        );
    }

    #[test]
    fn a_nested_record_is_refused() {
        #[derive(Serialize, Default)]
        struct Nested {
            inner: Measures,
        }
        let err = cells(&Nested::default()).unwrap_err().to_string();
        assert!(
            err.starts_with("field inner: a record's field must be"),
            "{err}"
        );
    }
}
