//! `isrlab export FILE.toml`: a scenario's dashboard for slides and the web, made headless.
//!
//! - `--at 10s,25s --svg DIR [--size 120x40]`: the dashboard at those sim instants as SVG
//!   pictures of its cell buffer ([`svg`]), colours and bold kept;
//! - `--cast FILE.cast`: an asciicast v2 recording of the whole run at 10 frames per sim
//!   second, which asciinema's player plays at 1× ([`cast`]);
//! - `--timeline TOPIC-P --svg DIR`: a figure of one partition over the run: leader and epoch,
//!   ISR size, HW and each replica's LEO ([`timeline`]).
//!
//! The same file and seed give the same files, byte for byte: everything is drawn from the
//! simulation's own clock ([`player`]).

pub mod cast;
pub mod cells;
pub mod player;
pub mod svg;
pub mod timeline;

pub use player::{FRAME_US, Play, Player, Size};

use crate::cluster::command::Command;
use crate::cluster::snapshot::ScenarioInfo;
use crate::scenario::Scenario;
use crate::sim::{SimTime, TopicPartition, format_instant};
use crate::ui::theme::Theme;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The smallest and largest `--size` (columns, rows).
pub const SIZE_LIMITS: ((u16, u16), (u16, u16)) = ((20, 10), (500, 200));

/// Parses `--size COLUMNSxROWS`, e.g. `120x40`. Errors: the problem in words.
pub fn parse_size(text: &str) -> Result<Size, String> {
    let ((min_w, min_h), (max_w, max_h)) = SIZE_LIMITS;
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u16>().ok()?, h.trim().parse::<u16>().ok()?)));
    let Some((width, height)) = parsed else {
        return Err(format!("`{text}` is not COLUMNSxROWS, e.g. 120x40"));
    };
    if !(min_w..=max_w).contains(&width) || !(min_h..=max_h).contains(&height) {
        return Err(format!(
            "`{text}`: a screen is {min_w} to {max_w} columns and {min_h} to {max_h} rows, e.g. 120x40"
        ));
    }
    Ok(Size { width, height })
}

/// Parses `--timeline TOPIC-PARTITION`, e.g. `test_repli-0`. Errors: the problem in words.
pub fn parse_partition(text: &str) -> Result<TopicPartition, String> {
    text.rsplit_once('-')
        .filter(|(topic, _)| !topic.is_empty())
        .and_then(|(topic, p)| Some(TopicPartition::new(topic, p.parse::<u32>().ok()?)))
        .ok_or_else(|| format!("`{text}` is not TOPIC-PARTITION, e.g. test_repli-0"))
}

/// What to export.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Instants to draw the dashboard at (`--at`).
    pub at: Vec<SimTime>,
    /// The directory for SVG files (`--svg`).
    pub svg: Option<PathBuf>,
    /// The screen size.
    pub size: Size,
    /// The cast file (`--cast`).
    pub cast: Option<PathBuf>,
    /// The partition of the timeline figure (`--timeline`).
    pub timeline: Option<TopicPartition>,
}

/// A file to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Where.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// What an export made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    /// The files, in the order made.
    pub files: Vec<File>,
    /// Commands the cluster refused on the way (see [`Player::refused`]).
    pub refused: Vec<String>,
}

/// Checks that `request` asks for something, with the directory it needs, and instants within
/// `end`. Errors: the problem in words.
pub fn check(request: &Request, end: SimTime) -> Result<(), String> {
    let Request { at, svg, cast, timeline, .. } = request;
    if at.is_empty() && svg.is_none() && cast.is_none() && timeline.is_none() {
        return Err(
            "nothing to export: give --at TIMES with --svg DIR (screens), --cast FILE.cast (a recording) or --timeline TOPIC-P with --svg DIR (a figure)".into(),
        );
    }
    if svg.is_none() && !at.is_empty() {
        return Err("--at draws screens as SVG files: give --svg DIR to put them in".into());
    }
    if svg.is_none() && timeline.is_some() {
        return Err("--timeline draws an SVG figure: give --svg DIR to put it in".into());
    }
    if svg.is_some() && at.is_empty() && timeline.is_none() {
        return Err("--svg DIR needs --at TIMES (e.g. --at 10s,25s) or --timeline TOPIC-P".into());
    }
    if let Some(late) = at.iter().find(|t| **t > end) {
        return Err(format!(
            "--at {} is after the scenario's end ({})",
            format_instant(*late),
            format_instant(end)
        ));
    }
    Ok(())
}

/// A file name for the screen at `t`: `screen-10s.svg`, `screen-2500ms.svg`,
/// `screen-1500us.svg`.
pub fn screen_name(t: SimTime) -> String {
    let us = t.as_micros();
    if us.is_multiple_of(1_000_000) {
        format!("screen-{}s.svg", us / 1_000_000)
    } else if us.is_multiple_of(1_000) {
        format!("screen-{}ms.svg", us / 1_000)
    } else {
        format!("screen-{us}us.svg")
    }
}

/// Plays `play` and makes what `request` asks for, drawn in `theme`. Runs to the scenario's
/// end for a cast or a timeline, else to the last `--at`. Errors: [`check`]'s, a cluster that
/// cannot start, a timeline partition the run never has.
pub fn export(play: &Play, request: &Request, theme: Theme) -> Result<Exported, String> {
    let end = play.info.end;
    check(request, end)?;
    let mut player =
        Player::new(play, request.size, theme).map_err(|e| format!("the cluster cannot start: {e}"))?;
    let whole = request.cast.is_some() || request.timeline.is_some();
    let stop = if whole { end } else { request.at.iter().copied().max().unwrap_or(end) };
    let frames =
        (0..=stop.as_micros() / FRAME_US).map(|i| SimTime::from_micros(i * FRAME_US)).filter(|_| whole);
    let at: BTreeSet<SimTime> = request.at.iter().copied().collect();
    let instants: BTreeSet<SimTime> = frames.chain(at.iter().copied()).chain([stop]).collect();
    let title =
        |t: SimTime| format!("isrlab · {} · seed {} · {}", play.info.name, play.spec.seed, format_instant(t));
    let (width, height) = (request.size.width, request.size.height);
    let mut files = Vec::new();
    let named = format!("isrlab · {} · seed {}", play.info.name, play.spec.seed);
    let mut cast = request.cast.as_ref().map(|_| vec![cast::header(width, height, &named)]);
    let mut shown: Option<ratatui::buffer::Buffer> = None;
    let mut samples = Vec::new();
    for t in instants {
        player.advance_to(t);
        if let Some(lines) = cast.as_mut().filter(|_| t.as_micros().is_multiple_of(FRAME_US)) {
            let buf = player.draw().clone();
            let data = cast::frame(shown.as_ref(), &buf);
            if !data.is_empty() {
                lines.push(cast::event(t.as_micros() as f64 / 1e6, &data));
            }
            shown = Some(buf);
        }
        if let (Some(dir), true) = (&request.svg, at.contains(&t)) {
            let text = svg::screen(player.draw(), &title(t));
            files.push(File { path: dir.join(screen_name(t)), text });
        }
        if let Some(tp) = &request.timeline
            && let Some(p) = player.snapshot().partitions.iter().find(|p| &p.tp == tp)
        {
            samples.push(timeline::Sample::of(p, t));
        }
    }
    if let (Some(tp), Some(dir)) = (&request.timeline, &request.svg) {
        if samples.is_empty() {
            let names: Vec<String> = player.snapshot().partitions.iter().map(|p| p.tp.to_string()).collect();
            return Err(format!(
                "partition {tp} is not in this scenario; its partitions: {}",
                names.join(", ")
            ));
        }
        let name = format!("{} · seed {}", play.info.name, play.spec.seed);
        let text = timeline::figure(tp, &name, &samples);
        files.push(File { path: dir.join(format!("timeline-{tp}.svg")), text });
    }
    if let (Some(path), Some(lines)) = (&request.cast, cast) {
        files.push(File { path: path.clone(), text: lines.join("\n") + "\n" });
    }
    Ok(Exported { files, refused: player.refused().to_vec() })
}

impl Play {
    /// What `scenario` plays: its cluster, its `[[at]]` steps, its name and end.
    pub fn of(scenario: Scenario) -> Play {
        let info = ScenarioInfo { name: scenario.name, end: scenario.end };
        Play { spec: scenario.spec, timeline: scenario.timeline, info }
    }
}

/// Checks that `scenario` (loaded from `file`) has partition `tp` at start or creates its
/// topic on the way, before the run. Errors: the partitions it has.
pub fn check_partition(scenario: &Scenario, file: &Path, tp: &TopicPartition) -> Result<(), String> {
    let at_start = scenario.spec.topics.iter().any(|t| *t.name == *tp.topic && tp.partition < t.partitions);
    let created = scenario
        .timeline
        .iter()
        .any(|a| matches!(&a.command, Some(Command::CreateTopic(c)) if *c.name == *tp.topic));
    if at_start || created {
        return Ok(());
    }
    let names: Vec<String> = scenario
        .spec
        .topics
        .iter()
        .flat_map(|t| (0..t.partitions).map(|p| format!("{}-{p}", t.name)))
        .collect();
    Err(format!(
        "--timeline {tp}: no such partition in {}; its partitions: {}",
        file.display(),
        names.join(", ")
    ))
}

/// Writes `files`, making their directories. Errors: the path and the system's words.
pub fn write(files: &[File]) -> Result<(), String> {
    for f in files {
        if let Some(dir) = f.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        }
        std::fs::write(&f.path, &f.text).map_err(|e| format!("cannot write {}: {e}", f.path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_partitions_parse_with_clear_errors() {
        assert_eq!(parse_size("120x40"), Ok(Size { width: 120, height: 40 }));
        assert!(parse_size("120").unwrap_err().contains("not COLUMNSxROWS"));
        assert!(parse_size("5x5").unwrap_err().contains("20 to 500 columns"));
        assert_eq!(parse_partition("test_repli-3"), Ok(TopicPartition::new("test_repli", 3)));
        assert_eq!(parse_partition("a-b-0"), Ok(TopicPartition::new("a-b", 0)));
        assert!(parse_partition("t").unwrap_err().contains("TOPIC-PARTITION"));
        assert!(parse_partition("-0").is_err());
    }

    #[test]
    fn a_request_needs_an_output_and_instants_within_the_end() {
        let end = SimTime::from_ms(60_000);
        let req = Request {
            at: vec![],
            svg: None,
            size: Size { width: 80, height: 24 },
            cast: None,
            timeline: None,
        };
        assert!(check(&req, end).unwrap_err().contains("nothing to export"));
        let at = Request { at: vec![SimTime::from_ms(10_000)], ..req.clone() };
        assert!(check(&at, end).unwrap_err().contains("give --svg DIR"));
        let late = Request { at: vec![SimTime::from_ms(90_000)], svg: Some("d".into()), ..req.clone() };
        assert!(check(&late, end).unwrap_err().contains("after the scenario's end"));
        let bare = Request { svg: Some("d".into()), ..req.clone() };
        assert!(check(&bare, end).unwrap_err().contains("needs --at"));
        let tl = Request { timeline: Some(TopicPartition::new("t", 0)), ..req.clone() };
        assert!(check(&tl, end).unwrap_err().contains("--timeline draws"));
        assert_eq!(check(&Request { cast: Some("a.cast".into()), ..req }, end), Ok(()));
        assert_eq!(screen_name(SimTime::from_ms(10_000)), "screen-10s.svg");
        assert_eq!(screen_name(SimTime::from_ms(2_500)), "screen-2500ms.svg");
        assert_eq!(screen_name(SimTime::from_micros(1_500)), "screen-1500us.svg");
    }
}
