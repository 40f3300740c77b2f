//! The keys of a lesson: the table that answers a question, and the table that continues a
//! lesson while it waits (after a step that pauses, or a reveal). Like every table they drive
//! dispatch, the footer and the help at once.

use crossterm::event::{KeyCode, KeyEvent};

use super::{Binding, Key, Resolve, ch, code, ctrl};

/// What a key asks for while a lesson waits at a pause or a reveal. Keys not in
/// [`LESSON_BINDINGS`] keep their dashboard meaning meanwhile.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LessonAction {
    /// Go on: the next question or reveal waiting at this instant, else the clock runs again.
    Continue,
}

/// What a key asks for while a question is open. The dashboard's other keys work as usual
/// meanwhile, but for those that would change the cluster (and so the answer): they are
/// refused until it is answered.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum QuestionAction {
    /// Answer with the choice of this index (`a` is 0).
    Answer(usize),
    /// Close the question to look at the cluster first; the clock stays stopped until it is
    /// answered (Enter or `n` opens it again).
    Hide,
    /// Leave the dashboard.
    Quit,
}

/// The letters that answer, lower case then upper case (Caps Lock on answers too).
const LETTERS: &[Key] = &[
    ch('a'),
    ch('b'),
    ch('c'),
    ch('d'),
    ch('e'),
    ch('f'),
    ch('A'),
    ch('B'),
    ch('C'),
    ch('D'),
    ch('E'),
    ch('F'),
];

/// The help's title over [`LESSON_BINDINGS`].
pub const LESSON_TITLE: &str = "In a lesson, while it waits (a pause, a question's answer)";
/// The help's title over [`QUESTION_BINDINGS`].
pub const QUESTION_TITLE: &str = "While a lesson asks a question (the clock waits for the answer; a-f answer even \
     while it is closed; keys that only look work as usual, a change to the cluster waits for the answer)";

/// The keys while a lesson waits (before the dashboard's own keys).
pub static LESSON_BINDINGS: &[Binding<LessonAction>] = &[Binding {
    keys: &[code(KeyCode::Enter), ch('n')],
    label: "Enter/n",
    footer: Some("continue"),
    help: "while the lesson waits (a pause, an answer): go on; otherwise n runs to the next event",
    action: LessonAction::Continue,
}];

/// The keys while a question is open.
pub static QUESTION_BINDINGS: &[Binding<QuestionAction>] = &[
    Binding {
        keys: LETTERS,
        label: "a-f",
        footer: Some("answer"),
        help: "answer with that choice; the run goes on to the simulation's answer",
        action: QuestionAction::Answer(0),
    },
    Binding {
        keys: &[code(KeyCode::Esc)],
        label: "Esc",
        footer: Some("look first"),
        help: "close the question to look at the cluster; the clock waits (Enter/n shows it again, a-f answer)",
        action: QuestionAction::Hide,
    },
    Binding {
        keys: &[ctrl('c')],
        label: "Ctrl-C",
        footer: Some("quit"),
        help: "quit isrlab",
        action: QuestionAction::Quit,
    },
];

impl Resolve for LessonAction {
    fn resolve(self, _index: usize, _count: usize, _ev: &KeyEvent) -> Self {
        self
    }
}

impl Resolve for QuestionAction {
    fn resolve(self, _index: usize, _count: usize, ev: &KeyEvent) -> Self {
        match (self, ev.code) {
            (QuestionAction::Answer(_), KeyCode::Char(c)) if c.is_ascii_alphabetic() => {
                QuestionAction::Answer(usize::from(c.to_ascii_lowercase() as u8 - b'a'))
            }
            _ => self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;
    use crossterm::event::KeyModifiers;

    fn key(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn a_letter_answers_with_its_choice_in_either_case() {
        assert_eq!(lookup(QUESTION_BINDINGS, &key('a')), Some(QuestionAction::Answer(0)));
        assert_eq!(lookup(QUESTION_BINDINGS, &key('c')), Some(QuestionAction::Answer(2)));
        assert_eq!(lookup(QUESTION_BINDINGS, &key('F')), Some(QuestionAction::Answer(5)));
        assert_eq!(lookup(QUESTION_BINDINGS, &key('g')), None, "six choices at most");
        assert_eq!(lookup(QUESTION_BINDINGS, &key('q')), None, "q is not a choice and does not quit here");
        let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
        assert_eq!(lookup(QUESTION_BINDINGS, &esc), Some(QuestionAction::Hide));
    }

    #[test]
    fn enter_and_n_continue_a_waiting_lesson() {
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(lookup(LESSON_BINDINGS, &enter), Some(LessonAction::Continue));
        assert_eq!(lookup(LESSON_BINDINGS, &key('n')), Some(LessonAction::Continue));
        assert_eq!(lookup(LESSON_BINDINGS, &key('x')), None);
    }
}
