//! A sample for fitting and calibrating the evaluation: a position and its exact value, with its
//! one-line text form (the samples files of `reversi train-eval`, written by [`super::train`]).

/// One solved position: the mover's and the other side's discs and the exact value for the
/// mover under the Othello rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// The side to move's discs.
    pub p: u64,
    /// The other side's discs.
    pub o: u64,
    /// The exact final disc difference for the side to move (empty squares to the winner).
    pub value: i8,
}

impl Sample {
    /// The sample as one line of a samples file: `p o value`, the discs in hexadecimal.
    #[must_use]
    pub fn to_line(&self) -> String {
        format!("{:016x} {:016x} {}", self.p, self.o, self.value)
    }

    /// A sample from a line of [`Sample::to_line`].
    ///
    /// # Errors
    /// A message when the line is not three fields of the right form.
    pub fn from_line(line: &str) -> Result<Sample, String> {
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("bad sample line '{line}': expected 'p o value'");
        if f.len() != 3 {
            return Err(bad());
        }
        let p = u64::from_str_radix(f[0], 16).map_err(|_| bad())?;
        let o = u64::from_str_radix(f[1], 16).map_err(|_| bad())?;
        let value: i8 = f[2].parse().map_err(|_| bad())?;
        if p & o != 0 || !(-64..=64).contains(&value) {
            return Err(bad());
        }
        Ok(Sample { p, o, value })
    }
}
