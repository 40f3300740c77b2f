//! The command palette's keys: editing the line, Enter to run it (or open a readout), and a
//! refused command's line opened again with the reason, so every typed line can be fixed in
//! place.

use super::actions::quit;
use super::{Effect, Mode, Model, ended_text};
use crate::cluster::command::Command;
use crate::cluster::snapshot::Snapshot;
use crate::ui::keymap::PaletteAction;
use crate::ui::tape::TapeCommand;
use crate::ui::whatif::WhatIfCommand;

pub(super) fn on_palette(model: &mut Model, action: PaletteAction, snap: &Snapshot) -> Vec<Effect> {
    match action {
        PaletteAction::Submit => submit(model, snap),
        PaletteAction::Quit => quit(model),
        PaletteAction::Cancel => {
            model.mode = Mode::Normal;
            model.palette.edit(action);
            Vec::new()
        }
        _ => {
            model.palette.edit(action);
            Vec::new()
        }
    }
}

/// A command the palette sent and the cluster refused (`crash 7`): the palette opens again on
/// its line with the reason, as for a line that does not parse, so every refusal of a typed
/// line can be fixed in place. Not when other keys took over meanwhile (a prompt, the help).
pub(super) fn reopen_refused_line(model: &mut Model, command: &Command, why: &str) {
    let Some((sent, line)) = model.palette_sent.take() else { return };
    if sent == *command && model.mode == Mode::Normal {
        model.palette.reopen_refused(&line, format!("{command}: {why}"));
        model.mode = Mode::Palette;
    } else if sent != *command {
        model.palette_sent = Some((sent, line));
    }
}

/// Enter in the palette: a valid line runs and closes it; a bad one stays open, editable,
/// with the reason shown under it, as does any line once the scenario reached its end. The
/// reason goes once the line is edited, and a `:` typed first starts a fresh line.
fn submit(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    model.palette.edit(PaletteAction::Submit);
    let line = model.palette.input().trim().to_string();
    if line.is_empty() {
        model.mode = Mode::Normal;
        return Vec::new();
    }
    if let Some(file) = crate::ui::record::parse(&line) {
        return match file {
            Ok(file) => {
                model.palette.remember(&line);
                model.palette.set_error(None);
                model.mode = Mode::Normal;
                vec![Effect::Save(Some(file))]
            }
            Err(why) => {
                model.palette.set_error(Some(why));
                Vec::new()
            }
        };
    }
    if let Some(tape) = crate::ui::tape::parse(&line) {
        return match tape {
            Ok(tape) => {
                model.palette.remember(&line);
                model.palette.set_error(None);
                model.mode = Mode::Normal;
                vec![match tape {
                    TapeCommand::Rewind(t) => Effect::Rewind(t),
                    TapeCommand::Branches => Effect::ListBranches,
                    TapeCommand::Branch(n) => Effect::SwitchBranch(n),
                }]
            }
            Err(why) => {
                model.palette.set_error(Some(why));
                Vec::new()
            }
        };
    }
    if let Some(whatif) = crate::ui::whatif::parse(&line) {
        return match whatif {
            Ok(_) if model.scenario_over(snap) => {
                model.palette.set_error(Some(ended_text(snap)));
                Vec::new()
            }
            Ok(whatif) => {
                model.palette.remember(&line);
                model.palette.set_error(None);
                model.mode = Mode::Normal;
                vec![match whatif {
                    WhatIfCommand::Start(cmd) => Effect::StartWhatIf(cmd),
                    WhatIfCommand::End => Effect::EndWhatIf(model.whatif.showing_whatif),
                }]
            }
            Err(why) => {
                model.palette.set_error(Some(why));
                Vec::new()
            }
        };
    }
    if let Some(query) = crate::ui::readout::parse(&line) {
        return crate::ui::readout::open(model, query, &line, snap);
    }
    match run_line(model, &line, snap) {
        Ok(cmd) => {
            model.palette.set_error(None);
            model.mode = Mode::Normal;
            model.palette_sent = Some((cmd.clone(), line));
            vec![Effect::Apply(cmd)]
        }
        Err(why) => {
            model.palette.set_error(Some(why));
            Vec::new()
        }
    }
}

/// The palette's check of a command line, for the palette and the config view's in-place
/// editor alike: a line that parses (the grammar of [`Command::parse`]) while the run goes
/// on is remembered in the palette's history and returned to apply; otherwise the reason,
/// in the palette's words.
pub(super) fn run_line(model: &mut Model, line: &str, snap: &Snapshot) -> Result<Command, String> {
    let cmd = Command::parse(line).map_err(|e| crate::ui::readout::with_palette_usage(e.message))?;
    if model.scenario_over(snap) {
        return Err(ended_text(snap));
    }
    model.palette.remember(line);
    Ok(cmd)
}
