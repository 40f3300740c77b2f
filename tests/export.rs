//! `isrlab export`: the dashboard as SVG at chosen instants, an asciicast v2 recording of the
//! run, and a partition's timeline figure. The files parse (an XML parser, a JSON parser), show
//! what the dashboard shows, and the same seed gives the same bytes.

mod support;

use isrlab::export::{self, Play, Request, Size};
use isrlab::scenario::load;
use isrlab::sim::{SimTime, TopicPartition};
use isrlab::ui::theme::Theme;
use std::path::{Path, PathBuf};
use support::isrlab;

const STORY: &str = "tests/scenarios/fc-15a-acks1-lost-clean-election.toml";

fn play() -> Play {
    Play::of(load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(STORY)).expect("the story loads"))
}

fn request(dir: &str) -> Request {
    Request {
        at: vec![SimTime::from_ms(10_000), SimTime::from_ms(25_000)],
        svg: Some(PathBuf::from(dir)),
        size: Size { width: 120, height: 40 },
        cast: Some(PathBuf::from(dir).join("run.cast")),
        timeline: Some(TopicPartition::new("t", 0)),
    }
}

fn export_once() -> export::Exported {
    export::export(&play(), &request("out"), Theme::new(true)).expect("the export runs")
}

/// The story's export, made once for the tests that read it.
fn exported() -> &'static export::Exported {
    static ONCE: std::sync::OnceLock<export::Exported> = std::sync::OnceLock::new();
    ONCE.get_or_init(export_once)
}

fn text_of(doc: &roxmltree::Document<'_>) -> String {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn screens_are_svg_of_the_dashboard_at_each_instant() {
    let out = exported();
    let names: Vec<String> = out.files.iter().map(|f| f.path.display().to_string()).collect();
    assert_eq!(names, ["out/screen-10s.svg", "out/screen-25s.svg", "out/timeline-t-0.svg", "out/run.cast"]);
    for (file, clock) in [(&out.files[0], "00:00:10.0"), (&out.files[1], "00:00:25.0")] {
        let doc =
            roxmltree::Document::parse(&file.text).unwrap_or_else(|e| panic!("{}: {e}", file.path.display()));
        let svg = doc.root_element();
        assert_eq!(svg.tag_name().name(), "svg");
        assert_eq!(svg.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
        assert_eq!((svg.attribute("width"), svg.attribute("height")), (Some("1080"), Some("720")));
        let text = text_of(&doc);
        assert!(text.contains(clock), "{clock} not on the screen:\n{text}");
        assert!(text.contains("FC-15a"), "the header names the scenario");
        // Colours and bold are kept: the header's name is bold, some text is coloured.
        let texts: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("text")).collect();
        assert!(texts.iter().any(|n| n.attribute("font-weight") == Some("bold")));
        let fills: std::collections::BTreeSet<&str> =
            texts.iter().filter_map(|n| n.attribute("fill")).collect();
        assert!(fills.len() >= 4, "several colours: {fills:?}");
    }
    // At 25 s the loss has happened and the dashboard says so.
    let late = roxmltree::Document::parse(&out.files[1].text).unwrap();
    assert!(text_of(&late).contains("acked lost: 5"), "{}", text_of(&late));
    assert!(out.refused.is_empty(), "{:?}", out.refused);
}

#[test]
fn the_cast_is_asciicast_v2() {
    let out = exported();
    let cast = &out.files[3].text;
    let mut lines = cast.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["version"], 2);
    assert_eq!((header["width"].as_u64(), header["height"].as_u64()), (Some(120), Some(40)));
    assert!(header["title"].as_str().unwrap().contains("FC-15a"));
    let mut last = -1.0;
    let mut frames = 0;
    for line in lines {
        let event: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let event = event.as_array().expect("an event is an array");
        assert_eq!(event.len(), 3);
        let t = event[0].as_f64().expect("time in seconds");
        assert!(t > last, "times go up: {t} after {last}");
        assert_eq!(event[1], "o");
        assert!(!event[2].as_str().unwrap().is_empty());
        last = t;
        frames += 1;
    }
    assert!(frames > 50, "{frames} frames");
    assert!(last <= 60.0 && last > 55.0, "the run to its end at 1×: last frame at {last}");
    // The screen as a player would show it at the end: feed every frame to a terminal.
    let mut parser = vt100::Parser::new(
        std::num::NonZeroU16::new(40).unwrap(),
        std::num::NonZeroU16::new(120).unwrap(),
        0,
    );
    for line in cast.lines().skip(1) {
        let event: serde_json::Value = serde_json::from_str(line).unwrap();
        parser.process(event[2].as_str().unwrap().as_bytes());
    }
    let screen = parser.screen().contents();
    assert!(screen.contains("00:01:00.0"), "{screen}");
    assert!(screen.contains("acked lost: 5"), "{screen}");
}

#[test]
fn the_timeline_figure_shows_leaders_epochs_and_offsets() {
    let out = exported();
    let doc = roxmltree::Document::parse(&out.files[2].text).expect("the figure parses");
    let text = text_of(&doc);
    for label in
        ["broker 1 · epoch 0", "broker 2 · epoch 1", "ISR size", "HW", "LEO of broker 1", "LEO of broker 2"]
    {
        assert!(text.contains(label), "{label} missing:\n{text}");
    }
    let paths = doc.descendants().filter(|n| n.has_tag_name("path")).count();
    assert_eq!(paths, 4, "ISR size, HW and two LEOs");
}

#[test]
fn the_same_seed_gives_the_same_files() {
    assert_eq!(&export_once(), exported());
}

#[test]
fn the_binary_writes_the_files_and_names_them() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-binary");
    let _ = std::fs::remove_dir_all(&dir);
    let svg = dir.join("slides");
    let cast = dir.join("run.cast");
    let args = [
        "export",
        STORY,
        "--at",
        "10s",
        "--svg",
        svg.to_str().unwrap(),
        "--size",
        "80x24",
        "--cast",
        cast.to_str().unwrap(),
    ];
    let out = isrlab(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains(&format!("written: {}", svg.join("screen-10s.svg").display())), "{stdout}");
    let picture = std::fs::read_to_string(svg.join("screen-10s.svg")).unwrap();
    let doc = roxmltree::Document::parse(&picture).unwrap();
    assert_eq!(doc.root_element().attribute("width"), Some("720"));
    let first = std::fs::read_to_string(&cast).unwrap();
    assert!(isrlab(&args).status.success());
    assert_eq!(std::fs::read_to_string(&cast).unwrap(), first, "the same run gives the same cast");
}

fn refused(args: &[&str]) -> String {
    let out = isrlab(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn bad_instants_sizes_and_requests_are_clear_errors() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-refused");
    let d = dir.to_str().unwrap();
    let err = refused(&["export", STORY, "--at", "10s,soon", "--svg", d]);
    assert!(err.contains("invalid value 'soon' for '--at"), "{err}");
    assert!(err.contains("is not a duration"), "{err}");
    let err = refused(&["export", STORY, "--at", "-5s", "--svg", d]);
    assert!(err.contains("negative"), "{err}");
    let err = refused(&["export", STORY, "--at", "90s", "--svg", d]);
    assert!(err.contains("--at 00:01:30.0 is after the scenario's end (00:01:00.0)"), "{err}");
    let err = refused(&["export", STORY, "--at", "10s", "--svg", d, "--size", "120by40"]);
    assert!(err.contains("`120by40` is not COLUMNSxROWS, e.g. 120x40"), "{err}");
    let err = refused(&["export", STORY, "--at", "10s", "--svg", d, "--size", "10x5"]);
    assert!(err.contains("20 to 500 columns and 10 to 200 rows"), "{err}");
    let err = refused(&["export", STORY, "--at", "10s"]);
    assert!(err.contains("give --svg DIR"), "{err}");
    let err = refused(&["export", STORY]);
    assert!(err.contains("nothing to export"), "{err}");
    let err = refused(&["export", STORY, "--timeline", "t-7", "--svg", d]);
    assert!(
        err.contains("--timeline t-7: no such partition") && err.contains("its partitions: t-0"),
        "{err}"
    );
    let err = refused(&["export", STORY, "--timeline", "t", "--svg", d]);
    assert!(err.contains("is not TOPIC-PARTITION"), "{err}");
    assert!(!dir.exists(), "nothing is written when the request is refused");
}

/// A step at 0 s is applied before the screen at 0 s is drawn, as the dashboard applies it
/// before its first frame; a refused step is reported, not fatal.
#[test]
fn steps_at_the_start_show_on_the_first_screen() {
    let text = r#"
name = "crash at start"
end = "2s"
[cluster]
brokers = [0, 1, 2]
[[topic]]
name = "t"
partitions = 1
replication_factor = 3
[[at]]
time = "0s"
do = "crash 2"
[[at]]
time = "1s"
do = "restart 0"
"#;
    let play = Play::of(isrlab::scenario::parse("start.toml", text).unwrap());
    let mut player = export::Player::new(&play, Size { width: 80, height: 24 }, Theme::new(true)).unwrap();
    player.advance_to(SimTime::ZERO);
    let crashed = player.snapshot().brokers.iter().find(|b| b.id == 2).unwrap();
    assert!(matches!(crashed.status, isrlab::cluster::snapshot::BrokerStatus::Crashed { .. }));
    let screen: String = player.draw().content().iter().map(|c| c.symbol()).collect();
    assert!(screen.contains("crashed"), "{screen}");
    player.advance_to(SimTime::from_ms(2_000));
    assert_eq!(player.refused().len(), 1, "{:?}", player.refused());
    assert!(
        player.refused()[0].starts_with("at 00:00:01.0 `restart 0` was refused"),
        "{:?}",
        player.refused()
    );
}
