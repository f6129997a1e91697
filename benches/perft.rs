//! Perft speed on the 8x8 start, asserting the count (OEIS A124004) before timing it.

use criterion::{criterion_group, criterion_main, Criterion};
use reversi_nxn::board::Shape;
use reversi_nxn::perft::{perft, PerftOptions};

fn perft_8x8(c: &mut Criterion) {
    let start = Shape::square(8).unwrap().start();
    let plain = PerftOptions {
        symmetry: false,
        hash_mb: 0,
    };
    // OEIS A124004: 390,216 games at ply 8.
    assert_eq!(perft(&start, 8, plain), 390_216);
    let mut group = c.benchmark_group("perft 8x8 depth 8");
    group.sample_size(20);
    group.bench_function("bulk, no symmetry, no table", |b| {
        b.iter(|| perft(&start, 8, plain))
    });
    group.bench_function("symmetry and table", |b| {
        b.iter(|| perft(&start, 8, PerftOptions::default()))
    });
    group.finish();
}

criterion_group!(benches, perft_8x8);
criterion_main!(benches);
