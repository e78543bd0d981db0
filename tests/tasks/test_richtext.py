"""WebEval/richtext-v0: text written into a contenteditable reply editor is saved; the
oracle passes on both golden paths, a one-word change or an internal note fails."""

from __future__ import annotations

from tests.support.episodes import oracle_policy, play

ENV = "WebEval/richtext-v0"


def test_the_oracle_saves_exactly_one_reply_with_the_asked_text(make_env):
    env = make_env(ENV, obs_mode="text")
    for path in ("fill-and-send", "type-and-shortcut"):
        run = play(env, oracle_policy(env, path), seed=2)
        replies = [m for m in run.last["semantic_state"].app["messages"] if m["kind"] == "reply"]
        assert [m["body"] for m in replies] == [run.last["task"].params["text"]], path


def test_a_text_with_one_word_changed_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    oracle = oracle_policy(env, "fill-and-send")

    def one_word_off(obs, info):
        action = oracle(obs, info)
        return action.replace("Your reference is", "Your reference was")

    run = play(env, one_word_off, seed=3)
    assert run.terminated and not run.success
    replies = [
        m["body"] for m in run.last["semantic_state"].app["messages"] if m["kind"] == "reply"
    ]
    assert len(replies) == 1 and "Your reference was" in replies[0]  # sent, with the changed word


def test_the_text_sent_as_an_internal_note_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    steps = iter(
        [
            ("click", "tab", "Internal note"),
            ("fill", "textbox", "Message"),
            ("click", "button", "Add note"),
        ]
    )

    def as_note(obs, info):
        step = next(steps, None)
        if step is None:
            return "done()"
        kind, role, name = step
        ref = info["semantic_state"].find(role, name)[0].ref
        return (
            f"fill('{ref}', {info['task'].params['text']!r})"
            if kind == "fill"
            else f"click('{ref}')"
        )

    run = play(env, as_note, seed=5)
    assert run.terminated and not run.success
    notes = [m["body"] for m in run.last["semantic_state"].app["messages"] if m["kind"] == "note"]
    assert run.last["task"].params["text"] in notes  # the right text, in the wrong place
