//! Swarm generation (Groce et al., "Swarm Testing", ISSTA 2012): instead of
//! one config for every case, each case first draws its own from the input,
//! within what the given config allows. Some cases then lack a feature
//! entirely (a `reg`-heavy case with no `fixed` operands reaches states a
//! case crowded by `fixed` never does) and others are dense in one. A
//! feature the config leaves out is never turned on.
//!
//! The draw reads four bytes. A first byte whose low two bits are zero (a
//! quarter of the cases, and every case of an exhausted input) keeps the
//! config as it is; otherwise each feature of [`crate::config::FEATURES`]
//! is left out with probability 1/4 and each constraint kind's weight is
//! multiplied by 1, 1, 3 or 6.

use crate::choices::Choices;
use crate::config::{Config, FEATURES};

/// The config one case uses: `base`, or a narrowing of it drawn from `c`.
pub fn draw(c: &mut Choices, base: &Config) -> Config {
    let mut config = base.clone();
    let first = c.byte();
    if first & 3 == 0 {
        return config;
    }
    // Two bits per feature: both set (1 in 4) leaves it out. 18 features
    // take 36 bits: the rest of the first byte, then four more.
    let mut bits = u64::from(first >> 2);
    for k in 0..4 {
        bits |= u64::from(c.byte()) << (6 + 8 * k);
    }
    for (k, (_, leave_out)) in FEATURES.iter().enumerate() {
        if (bits >> (2 * k)) & 3 == 3 {
            leave_out(&mut config);
        }
    }
    let weights = c.word();
    for (k, w) in config.weights.iter_mut().enumerate() {
        *w *= [1, 1, 3, 6][usize::from((weights >> (2 * k)) & 3)];
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbitrary::Unstructured;

    fn drawn(bytes: &[u8], base: &Config) -> Config {
        let mut u = Unstructured::new(bytes);
        let mut c = Choices::new(&mut u);
        draw(&mut c, base)
    }

    #[test]
    fn an_exhausted_input_keeps_the_config() {
        let c = drawn(&[], &Config::default());
        assert!(c.constraints.limit && c.calls && c.irreducible);
        assert_eq!(c.weights, Config::default().weights);
    }

    #[test]
    fn features_are_left_out_but_never_let_in() {
        let mut base = Config::default();
        base.constraints.limit = false;
        let (mut some_out, mut reg_out) = (0, 0);
        for seed in 0..200u32 {
            let bytes: Vec<u8> = (0..8)
                .map(|k| (seed.wrapping_mul(2654435761) >> (3 * k)) as u8 | 1)
                .collect();
            let c = drawn(&bytes, &base);
            assert!(!c.constraints.limit);
            some_out += usize::from(!c.calls || !c.irreducible || !c.constraints.stack);
            reg_out += usize::from(!c.constraints.reg);
        }
        assert!(
            some_out > 50 && reg_out > 20 && reg_out < 120,
            "{some_out} {reg_out}"
        );
    }
}
