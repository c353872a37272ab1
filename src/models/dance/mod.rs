//! Dance's particle starting to slide (Dance 2024, §3; docs/dance.md): the formal series of the
//! sliding velocity ([`series`], in the number types of [`precision`]), its growth and
//! truncation ([`truncation`]), and the rigid slide integrated from the series ([`rigid`]).

pub mod precision;
pub mod rigid;
pub mod series;
pub mod truncation;
