//! Sealed files: saved state that carries an FNV-1a checksum of its whole content, so that a
//! damaged or truncated file is refused rather than trusted (the checkpoints of `count` and deep
//! `perft`).
//!
//! Two layouts. A sealed JSON file is one line, `<16 hex digits> <json>\n`, the digits the
//! checksum of the JSON (the proof log's line format). A sealed binary file is its content
//! followed by an 8-byte little-endian trailer, the checksum of everything before it; it is
//! hashed as it is streamed out by [`write_with`] and as it is streamed back in by
//! [`HashReader`], so checking it costs no pass of its own.

use std::io::{BufRead, Read, Write};
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::fnv::{fnv1a, OFFSET};

/// The program that writes a file, as the files record it (and as the proof log records it):
/// its name and version.
#[must_use]
pub fn build() -> String {
    format!("reversi-nxn {}", env!("CARGO_PKG_VERSION"))
}

/// Why a sealed file is refused.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// The file could not be read at all.
    #[error("cannot read it ({0})")]
    Io(#[from] std::io::Error),
    /// The file ends early (a torn write or a truncated copy).
    #[error("truncated")]
    Truncated,
    /// Its checksum does not match its content.
    #[error("damaged (its checksum does not match)")]
    Damaged,
    /// A plain JSON file of an older version, written before files were sealed.
    #[error("written by an older version, without a checksum")]
    Unsealed,
    /// Its checksum matches but its content is not of this layout (another format version).
    #[error("not a file of this version ({0})")]
    Layout(String),
}

impl SealError {
    /// Whether the file itself is at fault (as opposed to the machine failing to read it).
    #[must_use]
    pub fn is_damage(&self) -> bool {
        !matches!(self, SealError::Io(_))
    }
}

/// `value` as a sealed JSON line.
///
/// # Errors
///
/// A value serde cannot write as JSON.
pub fn to_line<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    // serde_json writes no raw newline: the line stays one line.
    let json = serde_json::to_string(value)?;
    Ok(format!("{:016x} {json}\n", fnv1a(OFFSET, json.as_bytes())))
}

/// The value of a sealed JSON line, once its newline and checksum are checked.
///
/// # Errors
///
/// [`SealError::Truncated`] without the final newline, [`SealError::Damaged`] when the checksum
/// does not match, [`SealError::Layout`] when the JSON is not a `T`.
pub fn from_line<T: DeserializeOwned>(text: &str) -> Result<T, SealError> {
    let body = text.strip_suffix('\n').ok_or(SealError::Truncated)?;
    let (sum, json) = body.split_once(' ').ok_or(SealError::Damaged)?;
    let sum = (sum.len() == 16)
        .then(|| u64::from_str_radix(sum, 16).ok())
        .flatten()
        .ok_or(SealError::Damaged)?;
    if sum != fnv1a(OFFSET, json.as_bytes()) {
        return Err(SealError::Damaged);
    }
    serde_json::from_str(json).map_err(|e| SealError::Layout(e.to_string()))
}

/// Writes `value` to `path` as a sealed JSON line, atomically.
///
/// # Errors
///
/// Any I/O error (the temporary file is removed).
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let line = to_line(value).map_err(std::io::Error::other)?;
    crate::atomic::write_atomic(path, &line)
}

/// Reads the sealed JSON line at `path`.
///
/// # Errors
///
/// As [`from_line`], and [`SealError::Io`] for a file that cannot be read; bytes that are not
/// UTF-8 are [`SealError::Damaged`].
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, SealError> {
    let bytes = std::fs::read(path)?;
    if bytes.first() == Some(&b'{') {
        return Err(SealError::Unsealed);
    }
    let text = String::from_utf8(bytes).map_err(|_| SealError::Damaged)?;
    from_line(&text)
}

/// Bytes of a sealed binary file's trailer.
pub const TRAILER: usize = 8;

/// A writer that hashes what passes through it.
pub struct HashWriter<'a> {
    inner: &'a mut dyn Write,
    h: u64,
}

impl<'a> HashWriter<'a> {
    /// Hashes what goes to `inner`, from the hash of no bytes.
    pub fn new(inner: &'a mut dyn Write) -> HashWriter<'a> {
        HashWriter { inner, h: OFFSET }
    }

    /// The checksum of everything written so far.
    #[must_use]
    pub fn sum(&self) -> u64 {
        self.h
    }
}

impl Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.h = fnv1a(self.h, &buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes a sealed binary file atomically: what `write` writes, then the trailer.
///
/// # Errors
///
/// Any I/O error (the temporary file is removed).
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    crate::atomic::write_atomic_with(path, |out| {
        let mut w = HashWriter::new(out);
        write(&mut w)?;
        let sum = w.sum();
        out.write_all(&sum.to_le_bytes())
    })
}

/// A reader of a sealed binary file that hashes what passes through it, for checking the
/// trailer once the content is read.
pub struct HashReader<R> {
    inner: R,
    h: u64,
}

impl<R: BufRead> HashReader<R> {
    /// Reads from the start of a sealed binary file.
    pub fn new(inner: R) -> HashReader<R> {
        HashReader { inner, h: OFFSET }
    }

    /// [`BufRead::read_until`] a newline, hashed.
    ///
    /// # Errors
    ///
    /// Any I/O error.
    pub fn read_line(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        let start = buf.len();
        let n = self.inner.read_until(b'\n', buf)?;
        self.h = fnv1a(self.h, &buf[start..]);
        Ok(n)
    }

    /// Reads the trailer, which must follow: the checksum of everything read before it.
    /// Returns the reader (for a second pass).
    ///
    /// # Errors
    ///
    /// [`SealError::Truncated`] if the file ends first, [`SealError::Damaged`] if the checksum
    /// does not match.
    pub fn finish(mut self) -> Result<R, SealError> {
        let mut sum = [0u8; TRAILER];
        self.inner
            .read_exact(&mut sum)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => SealError::Truncated,
                _ => SealError::Io(e),
            })?;
        if u64::from_le_bytes(sum) != self.h {
            return Err(SealError::Damaged);
        }
        Ok(self.inner)
    }
}

impl<R: Read> Read for HashReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.h = fnv1a(self.h, &buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Probe {
        name: String,
        games: Vec<u64>,
    }

    fn probe() -> Probe {
        Probe {
            name: "4x5".into(),
            games: vec![1, 2, 3],
        }
    }

    #[test]
    fn a_line_round_trips_and_refuses_every_flip_and_cut() {
        let line = to_line(&probe()).unwrap();
        assert_eq!(from_line::<Probe>(&line).unwrap(), probe());
        let bytes = line.as_bytes();
        for i in 0..bytes.len() {
            let mut b = bytes.to_vec();
            b[i] ^= 0x04;
            if let Ok(t) = String::from_utf8(b) {
                assert!(from_line::<Probe>(&t).is_err(), "flip at {i} accepted");
            }
            assert!(
                matches!(
                    from_line::<Probe>(&line[..i]),
                    Err(SealError::Truncated | SealError::Damaged)
                ),
                "cut at {i} accepted"
            );
        }
    }

    #[test]
    fn a_binary_file_round_trips_and_refuses_a_flip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        write_with(&path, |w| {
            w.write_all(b"head\n")?;
            w.write_all(&[7u8; 1000])
        })
        .unwrap();
        let read = |bytes: &[u8]| -> Result<Vec<u8>, SealError> {
            let mut r = HashReader::new(bytes);
            let mut head = Vec::new();
            r.read_line(&mut head)?;
            let mut body = vec![0u8; 1000];
            r.read_exact(&mut body).map_err(|_| SealError::Truncated)?;
            r.finish()?;
            Ok(body)
        };
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 5 + 1000 + TRAILER);
        assert_eq!(read(&bytes).unwrap(), vec![7u8; 1000]);
        for i in [0, 3, 500, bytes.len() - 1] {
            let mut b = bytes.clone();
            b[i] ^= 1;
            assert!(read(&b).is_err(), "flip at {i} accepted");
        }
        assert!(matches!(
            read(&bytes[..bytes.len() - 1]),
            Err(SealError::Truncated)
        ));
    }
}
