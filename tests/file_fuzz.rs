//! Robustness of the file readers: random bytes and truncations of scenario files give a
//! located error (`FILE:LINE:COLUMN: …`), never a panic, and `isrlab run` exits 2 on them;
//! random damage to the dashboard's config file gives warnings that name the file, never a
//! panic. CI runs a few thousand damaged files with a fixed seed
//! (`ISRLAB_FUZZ_CASES`, `ISRLAB_PROPTEST_RANDOM=1` for more and other ones).

use isrlab::scenario::LoadError;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

fn config() -> ProptestConfig {
    let cases = std::env::var("ISRLAB_FUZZ_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(1500);
    let rng_seed = match std::env::var("ISRLAB_PROPTEST_RANDOM") {
        Ok(_) => RngSeed::Random,
        Err(_) => RngSeed::Fixed(20261206),
    };
    ProptestConfig { cases, rng_seed, failure_persistence: None, ..ProptestConfig::default() }
}

const SCENARIOS: &[&str] = &[
    include_str!("scenarios/disk-01-power-loss-all-brokers.toml"),
    include_str!("scenarios/adm-02-elect-unclean.toml"),
    include_str!("scenarios/cons-01-consumer-reads-below-hw.toml"),
    include_str!("v2/seed-example-lesson.toml"),
];

/// A damaged copy of one of the files: cut at a byte, bytes overwritten, or bytes inserted.
fn damaged(files: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    let file = prop::sample::select(files);
    let edit = (any::<prop::sample::Index>(), prop::collection::vec(any::<u8>(), 0..8), 0u8..3);
    (file, prop::collection::vec(edit, 1..4)).prop_map(|(text, edits)| {
        let mut bytes = text.as_bytes().to_vec();
        for (at, new, how) in edits {
            let i = at.index(bytes.len() + 1);
            match how {
                0 => bytes.truncate(i),
                1 => {
                    for (k, b) in new.iter().enumerate() {
                        if let Some(slot) = bytes.get_mut(i + k) {
                            *slot = *b;
                        }
                    }
                }
                _ => {
                    bytes.splice(i..i, new);
                }
            }
        }
        bytes
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn damaged_scenario_files_give_located_errors(bytes in damaged(SCENARIOS)) {
        // A file that is not UTF-8 is refused before parsing, as `load` does.
        let Ok(text) = String::from_utf8(bytes) else { return Ok(()) };
        if let Err(e) = isrlab::scenario::parse("damaged.toml", &text) {
            prop_assert!(matches!(e, LoadError::Invalid { .. }), "{e}");
            let located = e.to_string();
            let mut parts = located.splitn(4, ':');
            prop_assert_eq!(parts.next(), Some("damaged.toml"));
            prop_assert!(parts.next().is_some_and(|l| l.parse::<usize>().is_ok_and(|l| l >= 1)), "{}", located);
            prop_assert!(parts.next().is_some_and(|c| c.parse::<usize>().is_ok_and(|c| c >= 1)), "{}", located);
        }
    }

    #[test]
    fn damaged_config_files_give_warnings_naming_the_file(bytes in damaged(&[CONFIG])) {
        let text = String::from_utf8_lossy(&bytes);
        let loaded = isrlab::user_config::parse(&text, "config.toml");
        prop_assert!(loaded.warnings.iter().all(|w| w.starts_with("config.toml")), "{:?}", loaded.warnings);
    }
}

const CONFIG: &str = "speed = 2.0\npalette = \"color-blind\"\nascii = true\nbrokers = 5\nset = [\"acks=1\"]\n[keys]\ncrash = \"X\"\n";

/// The binary itself: truncated scenario files and random bytes exit 2 with a located error.
#[test]
fn isrlab_run_exits_2_on_damaged_files() {
    let dir = std::env::temp_dir().join(format!("isrlab-file-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = SCENARIOS[0];
    let cuts = [text.len() / 7, text.len() / 3, text.len() / 2];
    let mut files: Vec<Vec<u8>> = cuts.iter().map(|&c| text.as_bytes()[..c].to_vec()).collect();
    files.push(vec![0xff, 0xfe, b'[', 0, 7]);
    for (i, bytes) in files.iter().enumerate() {
        let path = dir.join(format!("damaged-{i}.toml"));
        std::fs::write(&path, bytes).unwrap();
        let out =
            std::process::Command::new(env!("CARGO_BIN_EXE_isrlab")).arg("run").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(&*path.display().to_string()), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
