//! Program styles: a profile calibrated on several real programs draws, for
//! each case, whose code the case looks like, then generates with that
//! program's shares. Programs differ more from each other than a union of
//! them shows: calibrated on the union of four, where one Go program holds
//! two thirds of the functions, a profile put early defs in 35% of the
//! cases against 7.5% of SQLite's and tiktoken's functions.

use crate::choices::Choices;
use crate::config::{Config, Style};

/// The most styles a config may hold (the draw's weights live on the stack).
pub const MAX_STYLES: usize = 8;

/// The config one case uses: `base` with one of its styles applied, drawn
/// from one byte by weight. A config without styles draws nothing, so it
/// decodes an input as before.
pub fn draw(c: &mut Choices, base: &Config) -> Config {
    let mut config = base.clone();
    let styles = base.styles;
    if styles.is_empty() {
        return config;
    }
    debug_assert!(styles.len() <= MAX_STYLES, "at most {MAX_STYLES} styles");
    let mut weights = [0u32; MAX_STYLES];
    for (w, s) in weights.iter_mut().zip(styles) {
        *w = s.weight;
    }
    let style = styles[c.weighted(&weights[..styles.len()])];
    apply(&mut config, &style);
    config
}

/// Applies `style` to `config` for good: the result holds no styles left to
/// draw (what `--style` asks for).
pub fn apply(config: &mut Config, style: &Style) {
    (style.apply)(config);
    config.styles = &[];
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbitrary::Unstructured;

    fn calls_16(c: &mut Config) {
        c.call_sixteenths = 16;
    }
    fn calls_0(c: &mut Config) {
        c.call_sixteenths = 0;
    }
    static TWO: [Style; 2] = [
        Style {
            name: "a",
            program: "A",
            weight: 1,
            apply: calls_16,
        },
        Style {
            name: "b",
            program: "B",
            weight: 3,
            apply: calls_0,
        },
    ];

    fn drawn(bytes: &[u8], base: &Config) -> (Config, usize) {
        let mut u = Unstructured::new(bytes);
        let config = {
            let mut c = Choices::new(&mut u);
            draw(&mut c, base)
        };
        (config, bytes.len() - u.len())
    }

    #[test]
    fn a_config_without_styles_reads_no_byte() {
        let (config, read) = drawn(&[7, 7], &Config::default());
        assert_eq!(read, 0);
        assert_eq!(config.call_sixteenths, Config::default().call_sixteenths);
    }

    #[test]
    fn every_style_is_drawn_by_its_weight_and_leaves_none_to_draw() {
        let base = Config {
            styles: &TWO,
            ..Config::default()
        };
        let mut seen = [0usize; 2];
        for b in 0..=255u8 {
            let (config, _) = drawn(&[b], &base);
            assert!(config.styles.is_empty());
            match config.call_sixteenths {
                16 => seen[0] += 1,
                0 => seen[1] += 1,
                other => panic!("no style gives {other}"),
            }
        }
        assert!(seen[0] > 0 && seen[1] > 2 * seen[0], "{seen:?}");
    }
}
