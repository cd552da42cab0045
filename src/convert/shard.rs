//! Sharded runs (`sp convert --shard I/N`): N processes (on as many nodes) each convert one
//! of N disjoint parts of the inputs, and a merge of the N part profiles gives the profile a
//! one-shot conversion of all inputs would give.
//!
//! A part is a plain schema-3 profile with three more attributes in `/metadata`, what the
//! merge needs to restore the one-shot result:
//!
//! - `sp_shard` (`"I/N"`): marks the file as part I of N.
//! - `sp_region_order`: the part's region names in the order its inputs first showed them.
//!   The region sort is stable, so regions of equal keys (no calls on some rank, or starts
//!   equal as float seconds) keep this order; a profile stores only the sorted order, and
//!   the parts' orders, joined in shard order, are the one-shot order.
//! - `sp_metadata_rank`: with `.h5` inputs, the rank whose input's metadata the part
//!   inherited, so the merge inherits from the lowest such rank over all parts, as the
//!   one-shot conversion does.
//!
//! The merge drops the three attributes. The label and `start_time_ns` need nothing
//! carried: the merge sets the label as the one-shot run does (`--label` or the output's
//! stem) and recomputes `start_time_ns` from the rows.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use crate::schema::{MetaValue, Metadata};

/// `sp_shard`: marks a part and says which.
pub const SHARD_KEY: &str = "sp_shard";
/// `sp_region_order`: the part's region names in order of first sight.
pub const REGION_ORDER_KEY: &str = "sp_region_order";
/// `sp_metadata_rank`: the rank whose input's metadata the part inherited.
pub const METADATA_RANK_KEY: &str = "sp_metadata_rank";

/// Part `index` (from 0) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shard {
    index: u32,
    count: u32,
}

/// Why a shard specification is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShardError {
    /// Not of the form `I/N` with two whole numbers.
    Syntax(String),
    /// `N` is zero or `I` is not below `N`.
    OutOfRange { index: u32, count: u32 },
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::Syntax(text) => {
                write!(f, "{text:?} is not I/N (two whole numbers, e.g. 3/8)")
            }
            ShardError::OutOfRange { index, count } => write!(
                f,
                "shard {index}/{count} does not exist: I counts from 0 and must be below N"
            ),
        }
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// Part `index` of `count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if index >= count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// The part's number, from 0.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The number of parts.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The part's inputs among `n` in the order the conversion reads them: consecutive
    /// runs whose lengths differ by at most one, part I holding inputs
    /// `⌊I·n/N⌋ .. ⌊(I+1)·n/N⌋`.
    pub fn inputs(&self, n: usize) -> Range<usize> {
        let at = |i: u32| (u128::from(i) * n as u128 / u128::from(self.count)) as usize;
        at(self.index)..at(self.index + 1)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let syntax = || ShardError::Syntax(text.to_owned());
        let (index, count) = text.split_once('/').ok_or_else(syntax)?;
        let number = |s: &str| {
            s.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| s.parse::<u32>().ok())
                .flatten()
                .ok_or_else(syntax)
        };
        Shard::new(number(index)?, number(count)?)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// What a part carries for the merge, read back from its metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    pub shard: Shard,
    pub region_order: Vec<String>,
    pub metadata_rank: Option<u32>,
}

impl Part {
    /// The attributes a part stores.
    pub fn store(&self, metadata: &mut Metadata) {
        metadata.insert(SHARD_KEY.into(), MetaValue::Str(self.shard.to_string()));
        metadata.insert(
            REGION_ORDER_KEY.into(),
            MetaValue::StrList(self.region_order.clone()),
        );
        if let Some(rank) = self.metadata_rank {
            metadata.insert(METADATA_RANK_KEY.into(), MetaValue::Int(i64::from(rank)));
        }
    }

    /// Takes a part's attributes out of an input's `metadata`; `None` (and `metadata`
    /// untouched) for an input that is not a part, or whose attributes do not read as one.
    pub fn take(metadata: &mut Metadata) -> Option<Part> {
        let shard = match metadata.get(SHARD_KEY) {
            Some(MetaValue::Str(s)) => s.parse().ok()?,
            _ => return None,
        };
        let region_order = match metadata.get(REGION_ORDER_KEY) {
            Some(MetaValue::StrList(names)) => names.clone(),
            _ => return None,
        };
        let metadata_rank = match metadata.get(METADATA_RANK_KEY) {
            None => None,
            Some(MetaValue::Int(rank)) => Some(u32::try_from(*rank).ok()?),
            Some(_) => return None,
        };
        for key in [SHARD_KEY, REGION_ORDER_KEY, METADATA_RANK_KEY] {
            metadata.remove(key);
        }
        Some(Part {
            shard,
            region_order,
            metadata_rank,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_i_of_n_and_rejects_the_rest() {
        assert_eq!("3/8".parse(), Ok(Shard { index: 3, count: 8 }));
        assert_eq!("0/1".parse::<Shard>().unwrap().to_string(), "0/1");
        for bad in [
            "3",
            "3/",
            "/8",
            "a/8",
            "3/8/1",
            "-1/8",
            "+1/8",
            " 1/8",
            "1/99999999999",
        ] {
            assert_eq!(
                bad.parse::<Shard>(),
                Err(ShardError::Syntax(bad.into())),
                "{bad}"
            );
        }
        assert_eq!(
            "8/8".parse::<Shard>(),
            Err(ShardError::OutOfRange { index: 8, count: 8 })
        );
        assert!("0/0".parse::<Shard>().is_err());
        assert_eq!(
            "8/8".parse::<Shard>().unwrap_err().to_string(),
            "shard 8/8 does not exist: I counts from 0 and must be below N"
        );
    }

    #[test]
    fn parts_are_consecutive_disjoint_and_even() {
        let ranges = |n: usize, count: u32| -> Vec<Range<usize>> {
            (0..count)
                .map(|i| Shard::new(i, count).unwrap().inputs(n))
                .collect()
        };
        assert_eq!(ranges(10, 4), [0..2, 2..5, 5..7, 7..10]);
        assert_eq!(ranges(2048, 8)[3], 768..1024);
        assert_eq!(ranges(2, 3), [0..0, 0..1, 1..2]);
        assert_eq!(ranges(0, 2), [0..0, 0..0]);
    }

    #[test]
    fn a_part_s_attributes_round_trip_and_are_removed() {
        let part = Part {
            shard: Shard::new(2, 5).unwrap(),
            region_order: vec!["b".into(), "a".into()],
            metadata_rank: Some(17),
        };
        let mut metadata = Metadata::new();
        metadata.insert("label".into(), MetaValue::Str("part_2".into()));
        part.store(&mut metadata);
        assert_eq!(metadata[SHARD_KEY], MetaValue::Str("2/5".into()));
        assert_eq!(Part::take(&mut metadata), Some(part));
        assert_eq!(metadata.keys().collect::<Vec<_>>(), ["label"]);
        // Not a part: nothing taken, nothing removed.
        metadata.insert(SHARD_KEY.into(), MetaValue::Int(2));
        assert_eq!(Part::take(&mut metadata), None);
        assert_eq!(metadata.len(), 2);
    }
}
