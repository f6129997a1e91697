//! The disk store's manifest: the segments of the current layer, the finished parts of the
//! next one and the tallies that include them, written atomically after every part as a sealed
//! JSON line (see [`crate::sealed`]): the segments carry checksums of their own, and the
//! tallies here must not be trusted unchecked either.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::super::segment::SegmentInfo;
use super::super::split::SplitRange;
use super::plan::fail;
use crate::count::{CountError, DiskStats};

/// One segment as the manifest names it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SegmentRec {
    pub(crate) file: String,
    /// The signature range of the part it holds.
    pub(crate) lo: u64,
    pub(crate) level: u32,
    pub(crate) entries: u64,
    pub(crate) bytes: u64,
    /// Positions with black to move (absent in manifests of the first version).
    #[serde(default)]
    pub(crate) black: Option<u64>,
}

impl SegmentRec {
    pub(crate) fn info(&self) -> SegmentInfo {
        SegmentInfo {
            entries: self.entries,
            bytes: self.bytes,
            black: self.black.unwrap_or(0),
        }
    }
    pub(crate) fn range(&self) -> SplitRange {
        SplitRange {
            lo: self.lo,
            level: self.level,
        }
    }
}

/// The state of a disk run, saved after every part.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Manifest {
    /// Always [`FORMAT`].
    pub(super) format: u32,
    /// The program that wrote it ([`crate::sealed::build`]).
    pub(super) build: String,
    /// What run this is: the start position, the classes and the slot layout.
    pub(super) position: String,
    pub(super) classes: usize,
    pub(super) counts: usize,
    pub(super) key_bytes: usize,
    /// Discs of the current layer.
    pub(super) discs: u32,
    /// The current layer.
    pub(super) layer: Vec<SegmentRec>,
    /// The parts of the next layer finished so far, in signature order.
    pub(super) next: Vec<SegmentRec>,
    /// The split level of the next layer's parts.
    pub(super) level: u32,
    /// Score tallies per class (decimal `u128`), including the finished parts.
    pub(super) matrices: Vec<Vec<String>>,
    /// Layers expanded so far: `(discs, positions)`.
    pub(super) rows: Vec<(u32, u64)>,
    /// The last layer's growth (positions of a layer over those of the one before).
    pub(super) growth: f64,
    pub(super) stats: DiskStats,
}

pub(super) const MANIFEST: &str = "manifest.json";

/// The manifest's layout. (2: sealed, with the build.)
pub(super) const FORMAT: u32 = 2;

impl Manifest {
    pub(super) fn layer_entries(&self) -> u64 {
        self.layer.iter().map(|s| s.entries).sum()
    }
    pub(super) fn disk_in_use(&self) -> u64 {
        self.layer.iter().chain(&self.next).map(|s| s.bytes).sum()
    }
    pub(super) fn save(&self, dir: &Path) -> Result<(), CountError> {
        crate::sealed::write_json(&dir.join(MANIFEST), self).map_err(|e| fail(dir, e))
    }
    pub(super) fn matrices(&self, dir: &Path) -> Result<Vec<Vec<u128>>, CountError> {
        self.matrices
            .iter()
            .map(|m| m.iter().map(|s| s.parse::<u128>()).collect())
            .collect::<Result<_, _>>()
            .map_err(|e| fail(dir, e))
    }
    pub(super) fn set_matrices(&mut self, m: &[Vec<u128>]) {
        self.matrices = m
            .iter()
            .map(|m| m.iter().map(u128::to_string).collect())
            .collect();
    }
}
