//! A small deterministic PRNG (SplitMix64): one seed gives the same hash draws and the same
//! permutation on every platform, native or wasm.

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014): 64-bit state, passes BigCrush, and is fast enough for per-flow hash draws.
#[derive(Clone, Debug)]
pub struct Rng(u64);

/// SplitMix64's increment, the golden ratio in 64 bits (dimensionless; the paper's constant).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output mix of one 64-bit word.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(mix(seed ^ GAMMA))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        mix(self.0)
    }

    /// A uniform integer in `0..n` (`n` > 0); the modulo bias is below 2^-32 for any `n` we use.
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % n.max(1) as u64) as u32
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// The hash a switch applies to a flow: a draw that depends on the seed (the fabric's hash
/// salt and the ports the run happened to pick), the flow and the switch, so two switches
/// hash one flow independently, as ECMP does with per-switch hash seeds.
pub fn hash3(seed: u64, flow: u64, switch: u64) -> u64 {
    hash_salted(salt(seed), flow, switch)
}

/// The part of [`hash3`] that depends on the seed alone, computed once per seed.
pub fn salt(seed: u64) -> u64 {
    mix(seed ^ GAMMA)
}

/// [`hash3`] from the seed's [`salt`]: one mix per draw (the same value as `hash3`).
#[inline]
pub fn hash_salted(salt: u64, flow: u64, switch: u64) -> u64 {
    mix(salt.wrapping_add(flow.wrapping_mul(GAMMA)) ^ switch.wrapping_mul(0xD6E8_FEB8_6659_FD93))
}

/// `x % n` for a fixed `n` without a division: Lemire, Kaser and Kurz, "Faster remainder by
/// direct computation" (Software: Practice and Experience, 2019), exact for every 64-bit `x`
/// and 32-bit `n` > 0 since 128 >= 64 + 32 bits. ECMP draws one per switch hop, and a 64-bit
/// division took most of a hashed connection's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastMod {
    m: u128,
    n: u64,
}

impl FastMod {
    pub fn new(n: u32) -> FastMod {
        let n = n.max(1) as u64;
        FastMod { m: (u128::MAX / n as u128).wrapping_add(1), n }
    }

    /// `x % n`, exactly.
    #[inline]
    pub fn of(self, x: u64) -> u64 {
        let low = self.m.wrapping_mul(x as u128);
        // The top 64 bits of the 192-bit product `low * n`.
        let hi = (low >> 64) * self.n as u128;
        let lo = ((low as u64) as u128 * self.n as u128) >> 64;
        ((hi + lo) >> 64) as u64
    }
}

/// A hasher for the model's own integer keys (leaf pairs, class keys): one multiply-rotate
/// per word, as rustc's FxHasher, far cheaper than the default SipHash on hot maps. Not for
/// untrusted keys (no flooding resistance is needed: every key comes from the model).
#[derive(Clone, Copy, Debug, Default)]
pub struct FastHasher(u64);

/// FxHasher's 64-bit multiplier (dimensionless; rustc-hash, from Firefox's hash).
const FX: u64 = 0x517C_C1B7_2722_0A95;

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(FX);
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
}

/// A `HashMap` keyed by the model's integers, hashed with [`FastHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_draws_cover_the_range() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let mut seen = [0u32; 4];
        for _ in 0..4000 {
            let x = a.below(4);
            assert_eq!(x, b.below(4));
            seen[x as usize] += 1;
        }
        // Each of 4 outcomes near 1000 of 4000 (binomial sd ~27).
        assert!(seen.iter().all(|&n| (850..1150).contains(&n)), "{seen:?}");
        assert_ne!(hash3(1, 2, 3), hash3(1, 2, 4));
    }

    #[test]
    fn fast_remainders_are_remainders() {
        let mut r = Rng::new(3);
        for n in (1..=300).chain([1023, 65_535, 1 << 20, u32::MAX - 1, u32::MAX]) {
            let f = FastMod::new(n);
            for x in [0, 1, n as u64 - 1, n as u64, n as u64 + 1, u64::MAX, u64::MAX - 1, u64::MAX / 2] {
                assert_eq!(f.of(x), x % n as u64, "{x} % {n}");
            }
            for _ in 0..200 {
                let x = r.next_u64();
                assert_eq!(f.of(x), x % n as u64, "{x} % {n}");
            }
        }
    }
}
