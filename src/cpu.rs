//! Which instructions the CPU running us has, and the one way the hot loops are compiled
//! again for newer CPUs.
//!
//! The release build targets any x86-64 CPU, whose baseline lacks `popcnt` and `lzcnt`: counting
//! discs and finding the end of a run then take a dozen instructions instead of one, and the
//! flips of the eight directions cannot be computed in vector registers. The hottest loops are
//! therefore compiled again for the x86-64-v3 level (AVX2: Haswell, 2013, and Zen, 2017,
//! onwards) and the x86-64-v4 level (AVX-512, with a vector `lzcnt`), and [`level`] chooses at
//! run time, so one binary runs everywhere and fast where it can. `REVERSI_CPU=portable` (or
//! `v3`) caps the level, to compare the copies or to test them.
//!
//! One instruction of x86-64-v3 is not fast everywhere: AMD's CPUs before Zen 3 (families
//! 0x15 to 0x18: Excavator, Zen, Zen+, Zen 2, Hygon's Dhyana) run `pext` in microcode, tens
//! to hundreds of cycles where others take three, and the pattern evaluation gathers two dozen patterns
//! with it at every leaf of the solver's ordering searches. [`fast_pext`] says whether to use
//! it ([`Cpu::pext`]) or gather by shifts and masks (the pattern evaluation's `Compress`);
//! `REVERSI_PEXT=shifts` (or `pext`) overrides the choice.
//!
//! # How a hot loop gets its copies
//!
//! The loop is written once, as ordinary generic code: a [`Job`] whose `run::<C>` is
//! `#[inline(always)]` and reaches the level's instructions through the [`Cpu`] token `C` it is
//! given ([`Cpu::flips`]). [`run`] hands the job to the token of the best level, whose
//! [`Cpu::run`] is the one function compiled with that level's target features; everything the
//! job inlines is compiled with them too. A recursion calls the same copy again through the
//! token: [`Cpu::run`] for a job whose arguments may travel in memory, [`Cpu::call`] for one
//! called at every node, which passes the position in four registers (a [`Call`]: measured
//! 4-8% faster than arguments in memory on dfs and perft, whose nodes are cheap). Tests run a
//! job at every level the CPU has with [`run_at`] and [`levels`].
//!
//! Two rules keep a copy whole. Hot helpers are `#[inline(always)]` generic functions taking
//! the token: a helper left to the compiler's choice may stay a call, and is then compiled
//! without the level's instructions. And hot code has no closures: a closure is a function of
//! its own, compiled with the instructions of the Rust function that defines it (here none).

/// A set of instructions a copy of a hot loop is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The target's baseline (x86-64: SSE2 only).
    Portable,
    /// x86-64-v3: `popcnt`, `lzcnt`, `bmi1`, `bmi2`, `avx2`.
    V3,
    /// x86-64-v4: v3 and `avx512f`, `avx512vl`, `avx512cd`, `avx512bw`, `avx512dq`.
    V4,
}

/// The best level this CPU runs, capped by `REVERSI_CPU` if set. Checked once, then cached.
#[must_use]
pub fn level() -> Level {
    use std::sync::OnceLock;
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let cap = match std::env::var("REVERSI_CPU").as_deref() {
            Ok("portable") => Level::Portable,
            Ok("v3") => Level::V3,
            _ => Level::V4,
        };
        best().min(cap)
    })
}

/// The best level this CPU runs, whatever `REVERSI_CPU` says. Checked once, then cached.
fn best() -> Level {
    use std::sync::OnceLock;
    static BEST: OnceLock<Level> = OnceLock::new();
    *BEST.get_or_init(detected)
}

/// Whether this CPU's `pext` is fast enough to gather the pattern evaluation's squares with:
/// it has BMI2 and is not one of the AMD families that run `pext` in microcode (before Zen 3),
/// unless `REVERSI_PEXT` says `pext` or `shifts`. Checked once, then cached. Either way the
/// evaluation is the same; only its speed differs.
#[must_use]
pub fn fast_pext() -> bool {
    use std::sync::OnceLock;
    static FAST: OnceLock<bool> = OnceLock::new();
    *FAST.get_or_init(|| match std::env::var("REVERSI_PEXT").as_deref() {
        Ok("shifts") => false,
        Ok("pext") => best() >= Level::V3,
        _ => best() >= Level::V3 && !microcoded_pext(),
    })
}

/// Whether the CPU is one that runs `pext` in microcode: AMD (or Hygon) family 0x15 to 0x18.
#[cfg(target_arch = "x86_64")]
fn microcoded_pext() -> bool {
    // `cpuid` exists on every x86-64 CPU, with leaves 0 (the vendor) and 1 (the signature).
    let (vendor, signature) = {
        use std::arch::x86_64::__cpuid;
        let v = __cpuid(0);
        (
            [
                v.ebx.to_le_bytes(),
                v.edx.to_le_bytes(),
                v.ecx.to_le_bytes(),
            ]
            .concat(),
            __cpuid(1).eax,
        )
    };
    let amd = vendor == b"AuthenticAMD" || vendor == b"HygonGenuine";
    amd && (0x15..0x19).contains(&cpu_family(signature))
}

/// No `pext` off x86-64.
#[cfg(not(target_arch = "x86_64"))]
fn microcoded_pext() -> bool {
    true
}

/// The family of a CPU from the signature `cpuid` leaf 1 gives in `eax`: the base family, plus
/// the extended family when the base is 0xF.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn cpu_family(signature: u32) -> u32 {
    let base = (signature >> 8) & 0xF;
    if base == 0xF {
        base + ((signature >> 20) & 0xFF)
    } else {
        base
    }
}

/// Every level this CPU runs, lowest first, so that tests can compare every copy of a job.
#[must_use]
pub fn levels() -> Vec<Level> {
    [Level::Portable, Level::V3, Level::V4]
        .into_iter()
        .filter(|&l| l <= best())
        .collect()
}

/// A piece of hot code, written once and compiled once per [`Level`].
///
/// `run` must be `#[inline(always)]`, and so must every hot function it calls other than
/// through `cpu.run`: only code inlined into [`Cpu::run`] is compiled with the level's
/// instructions.
pub trait Job {
    /// What the job gives back.
    type Output;
    /// The highest level worth running this job at: a job measured no faster at a level caps
    /// itself below it (the copy for that level is then never run).
    const TOP: Level = Level::V4;
    /// The job, with the instructions of `cpu`'s level.
    fn run<C: Cpu>(self, cpu: C) -> Self::Output;
}

/// A piece of hot code called with four words in registers (a position's discs, its empty
/// squares, a depth or a window) and a small job value (at most two words: a reference to
/// what the calls share), for recursions whose calls are too frequent to pass their
/// arguments in memory, as [`Cpu::run`] does for a larger [`Job`].
pub trait Call {
    /// What the call gives back.
    type Output;
    /// The call, with the instructions of `cpu`'s level. Must be `#[inline(always)]`.
    fn call<C: Cpu>(self, cpu: C, a: u64, b: u64, c: u64, d: u64) -> Self::Output;
}

/// A token of one level: a value exists only where the CPU has the level's instructions, so
/// code holding one may use them.
pub trait Cpu: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// The discs that a move on `sq` by the owner of `p` flips among `o`, by the fastest code
    /// of this level ([`crate::board::flips`] or [`crate::board::flips_avx2`]).
    fn flips(self, p: u64, o: u64, sq: u32) -> u64;
    /// The bits of `x` under `mask`, gathered into the low bits in ascending order (`pext`
    /// from x86-64-v3, a loop over the mask's bits below).
    fn pext(self, x: u64, mask: u64) -> u64;
    /// Runs `job` compiled with this level's instructions.
    fn run<J: Job>(self, job: J) -> J::Output;
    /// Calls `job` with the words `a` to `d`, compiled with this level's instructions.
    fn call<J: Call>(self, job: J, a: u64, b: u64, c: u64, d: u64) -> J::Output;
}

/// Runs `job` at the best level this CPU runs ([`level`], capped by the job's [`Job::TOP`]).
pub fn run<J: Job>(job: J) -> J::Output {
    run_at(level(), job)
}

/// Runs `job` at `want`, or at the best level below it that this CPU runs (and the job's
/// [`Job::TOP`] allows).
pub fn run_at<J: Job>(want: Level, job: J) -> J::Output {
    match want.min(best()).min(J::TOP) {
        #[cfg(target_arch = "x86_64")]
        Level::V4 => V4(()).run(job),
        #[cfg(target_arch = "x86_64")]
        Level::V3 => V3(()).run(job),
        _ => Portable.run(job),
    }
}

/// The token of the target's baseline: every CPU has it.
#[derive(Debug, Clone, Copy)]
pub struct Portable;

impl Cpu for Portable {
    #[inline(always)]
    fn flips(self, p: u64, o: u64, sq: u32) -> u64 {
        crate::board::flips(p, o, sq)
    }
    #[inline(always)]
    fn pext(self, x: u64, mask: u64) -> u64 {
        pext_portable(x, mask)
    }
    #[inline(always)]
    fn run<J: Job>(self, job: J) -> J::Output {
        job.run(self)
    }
    #[inline(always)]
    fn call<J: Call>(self, job: J, a: u64, b: u64, c: u64, d: u64) -> J::Output {
        job.call(self, a, b, c, d)
    }
}

/// `pext` by a loop over the bits of `mask`, lowest first: the portable twin.
#[inline(always)]
#[must_use]
pub fn pext_portable(x: u64, mask: u64) -> u64 {
    let (mut out, mut m, mut k) = (0u64, mask, 0);
    while m != 0 {
        let low = m & m.wrapping_neg();
        if x & low != 0 {
            out |= 1 << k;
        }
        k += 1;
        m ^= low;
    }
    out
}

/// The token of x86-64-v3, made only by [`run_at`] after checking the CPU.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub struct V3(());

#[cfg(target_arch = "x86_64")]
impl Cpu for V3 {
    #[inline(always)]
    fn flips(self, p: u64, o: u64, sq: u32) -> u64 {
        // SAFETY: a `V3` exists only on a CPU with AVX2.
        unsafe { crate::board::flips_avx2(p, o, sq) }
    }
    #[inline(always)]
    fn pext(self, x: u64, mask: u64) -> u64 {
        // SAFETY: a `V3` exists only on a CPU with BMI2.
        unsafe { std::arch::x86_64::_pext_u64(x, mask) }
    }
    #[inline(always)]
    fn run<J: Job>(self, job: J) -> J::Output {
        // SAFETY: a `V3` exists only on a CPU with these features.
        unsafe { run_v3(self, job) }
    }
    #[inline(always)]
    fn call<J: Call>(self, job: J, a: u64, b: u64, c: u64, d: u64) -> J::Output {
        // SAFETY: as above.
        unsafe { call_v3(self, job, a, b, c, d) }
    }
}

/// `job` compiled with the x86-64-v3 features.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
fn run_v3<J: Job>(cpu: V3, job: J) -> J::Output {
    job.run(cpu)
}

/// `job`'s call compiled with the x86-64-v3 features.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
fn call_v3<J: Call>(cpu: V3, job: J, a: u64, b: u64, c: u64, d: u64) -> J::Output {
    job.call(cpu, a, b, c, d)
}

/// The token of x86-64-v4, made only by [`run_at`] after checking the CPU.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub struct V4(());

#[cfg(target_arch = "x86_64")]
impl Cpu for V4 {
    /// The scalar flips, which the compiler vectorizes here with AVX-512's `lzcnt`: measured
    /// faster than the AVX2 flips in the dfs walk and dp's expansion.
    #[inline(always)]
    fn flips(self, p: u64, o: u64, sq: u32) -> u64 {
        crate::board::flips(p, o, sq)
    }
    #[inline(always)]
    fn pext(self, x: u64, mask: u64) -> u64 {
        // SAFETY: a `V4` exists only on a CPU with BMI2.
        unsafe { std::arch::x86_64::_pext_u64(x, mask) }
    }
    #[inline(always)]
    fn run<J: Job>(self, job: J) -> J::Output {
        // SAFETY: a `V4` exists only on a CPU with these features.
        unsafe { run_v4(self, job) }
    }
    #[inline(always)]
    fn call<J: Call>(self, job: J, a: u64, b: u64, c: u64, d: u64) -> J::Output {
        // SAFETY: as above.
        unsafe { call_v4(self, job, a, b, c, d) }
    }
}

/// `job` compiled with the x86-64-v4 features.
#[cfg(target_arch = "x86_64")]
#[target_feature(
    enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd,avx512bw,avx512dq"
)]
fn run_v4<J: Job>(cpu: V4, job: J) -> J::Output {
    job.run(cpu)
}

/// `job`'s call compiled with the x86-64-v4 features.
#[cfg(target_arch = "x86_64")]
#[target_feature(
    enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd,avx512bw,avx512dq"
)]
fn call_v4<J: Call>(cpu: V4, job: J, a: u64, b: u64, c: u64, d: u64) -> J::Output {
    job.call(cpu, a, b, c, d)
}

#[cfg(target_arch = "x86_64")]
fn detected() -> Level {
    use std::arch::is_x86_feature_detected as has;
    let v3 = has!("popcnt") && has!("lzcnt") && has!("bmi1") && has!("bmi2") && has!("avx2");
    let v4 = v3
        && has!("avx512f")
        && has!("avx512vl")
        && has!("avx512cd")
        && has!("avx512bw")
        && has!("avx512dq");
    if v4 {
        Level::V4
    } else if v3 {
        Level::V3
    } else {
        Level::Portable
    }
}

/// Off x86-64 there is one copy, compiled for the target.
#[cfg(not(target_arch = "x86_64"))]
fn detected() -> Level {
    Level::Portable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_read_from_the_signature() {
        // Signatures as `cpuid` leaf 1 gives them (AMD's and Intel's revision guides).
        assert_eq!(cpu_family(0x0083_0F10), 0x17); // EPYC 7002 (Zen 2)
        assert_eq!(cpu_family(0x0080_0F12), 0x17); // EPYC 7001 (Zen)
        assert_eq!(cpu_family(0x00A0_0F11), 0x19); // EPYC 7003 (Zen 3)
        assert_eq!(cpu_family(0x00A1_0F11), 0x19); // EPYC 9004 (Zen 4)
        assert_eq!(cpu_family(0x0060_0F20), 0x15); // Excavator
        assert_eq!(cpu_family(0x0005_06E3), 6); // Skylake: no extended family
    }

    #[test]
    fn pext_is_fast_only_where_the_cpu_has_it() {
        if fast_pext() {
            assert!(best() >= Level::V3);
        }
    }
}
