"""The story world: deterministic, and every clue annotation points at the word it claims to."""

from __future__ import annotations

import pytest

from helpers import stories as world
from helpers.tokenizer import story_tokenizer

HAPPY, SAD = set(world.MOOD_WORDS["happy"]), set(world.MOOD_WORDS["sad"])
PRONOUN_WORDS = {w for forms in world.PRONOUNS.values() for w in forms}
FAMILY = {pronoun: family for family, (pronoun, _) in world.PRONOUNS.items()}
FAMILY |= {name: family for family, names in world.NAMES.items() for name in names}
for _family, _nouns in world.HEROES.items():
    FAMILY |= {singular: _family for singular, _ in _nouns} | {plural: "they" for _, plural in _nouns}
VERBS = [*world.PLAIN_VERBS, *world.CLAUSE_VERBS, *world.SENSE_VERBS.values()]
VERBS += [verb for row in world.MOOD_VERBS.values() for verb in row.values()]
TOPIC_WORDS = {name: set(topic["places"] + topic["things"]) for name, topic in world.TOPICS.items()}


@pytest.fixture(scope="module")
def stories():
    return world.generate_stories(300, seed=7)


def test_same_seed_same_stories_other_seed_other_stories(stories):
    again = world.generate_stories(300, seed=7)
    assert [s.words for s in again] == [s.words for s in stories]
    assert [s.clues for s in again] == [s.clues for s in stories]
    assert [s.words for s in world.generate_stories(300, seed=8)] != [s.words for s in stories]


def test_stories_are_varied_and_use_the_whole_vocabulary(stories):
    assert all(s.words[0] == world.STORY_START for s in stories)
    lengths = [len(s.words) for s in stories]
    assert 50 < sum(lengths) / len(lengths) < 128 and len({s.text for s in stories}) == len(stories)  # fits context
    assert set(world.join_stories(world.generate_stories(3000, seed=1)).words) == set(world.story_vocabulary())
    assert len(world.story_vocabulary()) > 300


def test_many_words_need_several_kinds_of_clue_at_once(stories):
    kinds_per_word: dict[tuple[int, int], set[str]] = {}
    for i, story in enumerate(stories):
        for clue in story.clues:
            kinds_per_word.setdefault((i, clue.target), set()).add(clue.kind)
    assert sum(len(kinds) >= 2 for kinds in kinds_per_word.values()) / len(kinds_per_word) > 0.25


def test_every_kind_of_clue_occurs_and_points_back_at_the_right_words(stories):
    assert {c.kind for s in stories for c in s.clues} == set(world.CLUE_KINDS)
    for story in stories:
        words = story.words
        for clue in story.clues:
            assert clue.clues and all(0 < p < clue.target for p in clue.clues), clue
            target, clue_words = words[clue.target], [words[p] for p in clue.clues]
            if clue.kind == "previous":
                assert clue.clues == (clue.target - 1,)
            elif clue.kind == "mood":
                (mood,) = clue_words
                assert mood in HAPPY | SAD
                happy_target = target in {"smile", "smiles", "laugh", "laughs", "hum", "hums", "dance", "dances",
                                          "glad", "swim", "swims", "deposit", "deposits", "wave", "waves",
                                          "swing", "swings"}
                assert happy_target == (mood in HAPPY), (mood, target, story.text)
                # it is the latest mood word before the target
                assert not (set(words[clue.clues[0] + 1 : clue.target]) & (HAPPY | SAD))
            elif clue.kind == "sense":
                topics = [name for name, spots in TOPIC_WORDS.items() if set(clue_words) <= spots]
                assert len(topics) == 1, clue_words
                assert world.TOPICS[topics[0]]["word"] in words[: clue.target] or target in clue_words
            else:  # subject: a pronoun, a possessive or a verb that agrees with the hero
                (subject,) = clue_words
                family = FAMILY[subject]
                if target in PRONOUN_WORDS:
                    assert target in world.PRONOUNS[family], (subject, target)
                elif target in {"is", "are"}:
                    assert (target == "are") == (family == "they")
                else:
                    assert target in {world.agree(base, family == "they") for base in VERBS}, (subject, target)


def test_example_stories_and_sentences_use_story_words():
    assert len(world.example_stories()) >= 3 and len(world.example_sentences()) >= 4
    for sentence in world.example_sentences():
        encoding = story_tokenizer().encode_with_report(sentence)
        assert encoding.unknown == [] and set(encoding.words) <= set(world.story_vocabulary()), sentence
