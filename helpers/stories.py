"""The story world: a built-in corpus of short English stories, generated locally from a seed.

The stories are made so that guessing the next word needs several clues at once, each a different
distance back:

- "subject":  who the sentence is about. "the fox that crosses the wet streets smiles" (one fox, so
  "smiles", even though the nearest noun "streets" is plural); "he / she / it / they" later on.
- "previous": the word just before, which says what kind of word fits here (after "and" a verb,
  after "quietly" a quiet verb, after "is" an adjective).
- "mood":     the latest mood word ("eagerly" ... "smiles" but "sadly" ... "sighs").
- "sense":    an ambiguous word settled by a distant clue: at the "bank" of a river you swim, at a
  bank in town you deposit money.

Many words need two or three clues at once (a verb's ending comes from the subject, its meaning from
the mood), so one spotlight has to compromise where several can each follow one clue.

For every clue-dependent word the generator records a `Clue`: the word's position, the kind of clue,
and the position(s) of the clue word(s) it depends on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import NamedTuple

CLUE_KINDS = ("subject", "previous", "mood", "sense")
"""The four kinds of clue the story world records."""

STORY_START = "<story>"
"""Token that opens every story in the stream of training text."""


class Clue(NamedTuple):
    """Word at `target` depends on the word(s) at `clues` (same story or stream), a clue of `kind`."""

    target: int
    kind: str
    clues: tuple[int, ...]


@dataclass
class Story:
    """A story as a list of words plus the clue annotations (positions index `words`)."""

    words: list[str] = field(default_factory=list)
    clues: list[Clue] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(self.words)


# ---------------------------------------------------------------------------------------------
# Word lists. Nouns are (singular, plural); the pronoun family of a singular hero is fixed.
# ---------------------------------------------------------------------------------------------

HEROES = {
    "he": [("boy", "boys"), ("man", "men"), ("king", "kings"), ("prince", "princes"),
           ("farmer", "farmers"), ("sailor", "sailors"), ("wizard", "wizards"), ("uncle", "uncles")],
    "she": [("girl", "girls"), ("woman", "women"), ("queen", "queens"), ("princess", "princesses"),
            ("witch", "witches"), ("aunt", "aunts"), ("nurse", "nurses"), ("sister", "sisters")],
    "it": [("fox", "foxes"), ("dog", "dogs"), ("cat", "cats"), ("horse", "horses"), ("rabbit", "rabbits"),
           ("bird", "birds"), ("bear", "bears"), ("mouse", "mice"), ("animal", "animals"), ("owl", "owls"),
           ("goat", "goats"), ("duck", "ducks")],
}
NAMES = {"he": ["tom", "sam", "ben", "max", "leo", "jack"], "she": ["anna", "mia", "lily", "emma", "rosa", "nora"]}
PRONOUNS = {"he": ("he", "his"), "she": ("she", "her"), "it": ("it", "its"), "they": ("they", "their")}

MOOD_WORDS = {
    "happy": ["eagerly", "happily", "cheerfully", "gladly", "proudly", "joyfully"],
    "sad": ["sadly", "wearily", "gloomily", "glumly", "tearfully", "miserably"],
}
# mood verbs: the slot (set by the previous word) picks the row, the mood picks the verb.
MOOD_VERBS = {
    "plain": {"happy": "smile", "sad": "sigh"},  # right after the subject
    "and": {"happy": "laugh", "sad": "weep"},  # after "and"
    "quietly": {"happy": "hum", "sad": "sob"},  # after "quietly"
    "then": {"happy": "dance", "sad": "tremble"},  # after "then"
}
MOOD_ADJECTIVES = {"happy": "glad", "sad": "tired"}  # after "is" / "are"

# topics set the sense of the ambiguous words; each topic has places and things that reveal it.
TOPICS = {
    "river": {"places": ["river", "stream", "lake"], "things": ["boat", "net", "rod"], "word": "bank"},
    "money": {"places": ["market", "town", "city"], "things": ["coins", "purse", "gold"], "word": "bank"},
    "cave": {"places": ["cave", "tower", "mine"], "things": ["lamp", "torch", "candle"], "word": "bat"},
    "game": {"places": ["field", "park", "pitch"], "things": ["ball", "team", "gloves"], "word": "bat"},
}
# what you do with the ambiguous word depends on its sense (topic) and on the mood.
SENSE_VERBS = {
    ("river", "happy"): "swim", ("river", "sad"): "rest",
    ("money", "happy"): "deposit", ("money", "sad"): "borrow",
    ("cave", "happy"): "wave", ("cave", "sad"): "hide",
    ("game", "happy"): "swing", ("game", "sad"): "drop",
}

ADJECTIVES = ["wet", "old", "long", "narrow", "quiet", "dark", "wide", "green", "cold", "busy", "small",
              "tall", "muddy", "sunny", "empty", "stony", "windy", "broken", "shiny", "steep"]
OBJECTS = [("street", "streets"), ("bridge", "bridges"), ("wall", "walls"), ("road", "roads"),
           ("garden", "gardens"), ("hill", "hills"), ("gate", "gates"), ("fence", "fences"),
           ("path", "paths"), ("roof", "roofs"), ("door", "doors"), ("yard", "yards"), ("square", "squares"),
           ("meadow", "meadows"), ("stair", "stairs"), ("forest", "forests")]
CLAUSE_VERBS = ["cross", "climb", "pass", "paint", "find", "watch", "clean", "guard", "leave", "follow"]
TIMES = ["one morning", "one evening", "one day", "long ago", "on monday", "at dawn", "in winter",
         "in spring", "after lunch", "one night"]
FOODS = ["bread", "apples", "soup", "cheese", "berries", "cake", "rice", "plums", "nuts", "honey"]
COMPANIONS = ["crow", "frog", "snail", "pig", "lamb", "hen", "tiger", "wolf", "deer", "sheep"]
SKY = ["sky", "clouds", "moon", "stars", "sun", "trees", "hills", "sea", "rain", "roofs"]
WEATHER = [("wind", "blows"), ("rain", "falls"), ("sun", "shines"), ("storm", "roars"), ("snow", "falls"),
           ("mist", "rises"), ("bell", "rings"), ("clock", "ticks")]
ENDINGS = ["that night", "at home", "by the fire", "in bed", "after dinner", "till dawn", "for hours"]

GRAMMAR_WORDS = [".", ",", "the", "a", "to", "and", "that", "who", "is", "are", "with", "quietly", "then",
                 "later", "at", "last", "but", "near", "some", "over", "soon", "so", "noon", "on", "way", "night"]
PLAIN_VERBS = ["go", "walk", "look", "eat", "meet", "sleep"]


def third_person(verb: str) -> str:
    """'smile' -> 'smiles', 'cross' -> 'crosses', 'watch' -> 'watches', 'go' -> 'goes'."""
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    return verb + "s"


def agree(verb: str, plural: bool) -> str:
    """Present-tense verb that agrees with a singular or plural subject."""
    return verb if plural else third_person(verb)


# ---------------------------------------------------------------------------------------------
# The story builder: keeps track of who the story is about, the mood and the topic, and the
# positions of the words that set them, so each clue-dependent word can point back at its clues.
# ---------------------------------------------------------------------------------------------


@dataclass
class _Hero:
    noun: str  # "fox", "foxes" or a name
    family: str  # "he", "she", "it" or "they"
    named: bool

    @property
    def plural(self) -> bool:
        return self.family == "they"


class _Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.words: list[str] = []
        self.clues: list[Clue] = []
        family = rng.choice(["he", "she", "it", "they"])
        if family == "they":
            plural = rng.choice(HEROES[rng.choice(["he", "she", "it"])])[1]
            self.hero = _Hero(plural, "they", named=False)
        elif family != "it" and rng.random() < 0.3:
            self.hero = _Hero(rng.choice(NAMES[family]), family, named=True)
        else:
            self.hero = _Hero(rng.choice(HEROES[family])[0], family, named=False)
        self.mood = rng.choice(["happy", "sad"])
        self.topic = rng.choice(list(TOPICS))
        self.hero_at = -1  # position of the latest explicit mention of the hero
        self.mood_at = -1  # position of the latest mood word
        self.topic_at: tuple[int, ...] = ()  # positions of the place and thing that reveal the topic
        self.subject_at = -1  # position of the subject of the current clause (noun or pronoun)

    # low-level helpers -------------------------------------------------------------------------
    def say(self, *words: str) -> None:
        self.words.extend(words)

    def clue(self, kinds_and_clues: dict[str, tuple[int, ...]]) -> None:
        """Annotate the next word to be said."""
        target = len(self.words)
        for kind, clues in kinds_and_clues.items():
            self.clues.append(Clue(target, kind, clues))

    def hero_phrase(self) -> None:
        """'the fox' / 'tom' / 'the foxes'; marks the subject."""
        if not self.hero.named:
            self.say("the")
        self.hero_at = self.subject_at = len(self.words)
        self.say(self.hero.noun)

    def pronoun(self) -> None:
        """he / she / it / they, chosen by the hero mentioned earlier."""
        self.clue({"subject": (self.hero_at,)})
        self.subject_at = len(self.words)
        self.say(PRONOUNS[self.hero.family][0])

    def possessive(self) -> None:
        self.clue({"subject": (self.subject_at,)})
        self.say(PRONOUNS[self.hero.family][1])

    def verb(self, base: str) -> None:
        """A verb whose ending agrees with the subject (clue: subject)."""
        self.clue({"subject": (self.subject_at,)})
        self.say(agree(base, self.hero.plural))

    def mood_verb(self, slot: str) -> None:
        """Verb picked by mood and slot, ending by subject: needs three clues at once."""
        self.clue({"subject": (self.subject_at,), "mood": (self.mood_at,), "previous": (len(self.words) - 1,)})
        self.say(agree(MOOD_VERBS[slot][self.mood], self.hero.plural))

    def set_mood(self, mood: str) -> None:
        self.mood = mood
        self.mood_at = len(self.words)
        self.say(self.rng.choice(MOOD_WORDS[mood]))

    # sentence shapes ----------------------------------------------------------------------------
    def opening(self) -> None:
        """'one morning , the fox walks to the river with its boat .' (sets hero and topic)"""
        self.say(*self.rng.choice(TIMES).split(), ",")
        self.hero_phrase()
        self.verb("walk")
        self.say("to", "the")
        place_at = len(self.words)
        self.say(self.rng.choice(TOPICS[self.topic]["places"]), "with")
        self.possessive()
        self.topic_at = (place_at, len(self.words))
        self.say(self.rng.choice(TOPICS[self.topic]["things"]), ".")

    def mood_sentence(self) -> None:
        """'eagerly , she looks at the sky .' (sets the mood)"""
        self.set_mood(self.mood if self.rng.random() < 0.5 else self.rng.choice(["happy", "sad"]))
        self.say(",")
        self.pronoun()
        self.verb("look")
        self.say("at", "the", self.rng.choice(SKY), ".")

    def mood_switch(self) -> None:
        """'but then , sadly , the foxes sigh .' (changes the mood mid-story)"""
        self.say("but", "then", ",")
        self.set_mood("sad" if self.mood == "happy" else "happy")
        self.say(",")
        self.pronoun()
        self.mood_verb("plain")
        self.say(".")

    def relative_clause(self) -> None:
        """'the fox that crosses the wet streets smiles .' / '... is glad .' (subject across a clause)"""
        self.hero_phrase()
        if self.hero.named:
            self.say(",", "who")
        else:
            self.say("that")
        self.verb(self.rng.choice(CLAUSE_VERBS))
        self.say("the", self.rng.choice(ADJECTIVES), self.rng.choice(OBJECTS)[self.rng.random() < 0.5])
        if self.hero.named:
            self.say(",")
        if self.rng.random() < 0.5:
            self.mood_verb("plain")
        else:
            self.clue({"subject": (self.subject_at,)})
            self.say("are" if self.hero.plural else "is")
            self.clue({"mood": (self.mood_at,), "previous": (len(self.words) - 1,)})
            self.say(MOOD_ADJECTIVES[self.mood])
        self.say(".")

    def two_verbs(self) -> None:
        """'then they smile and laugh .' / 'he quietly hums and then dances .'"""
        self.say(self.rng.choice(["then", "soon", "so", "later"]))
        self.pronoun()
        if self.rng.random() < 0.5:
            self.mood_verb("plain")
        else:
            self.say("quietly")
            self.mood_verb("quietly")
        self.say("and")
        if self.rng.random() < 0.5:
            self.say("then")
            self.mood_verb("then")
        else:
            self.mood_verb("and")
        self.say(".")

    def ambiguous(self) -> None:
        """'later , she goes to the bank and deposits her coins .' (sense settled by the topic)"""
        self.say("later", ",")
        self.pronoun()
        self.verb("go")
        self.say("to", "the", TOPICS[self.topic]["word"], "and")
        self.clue({"sense": self.topic_at, "mood": (self.mood_at,), "subject": (self.subject_at,)})
        self.say(agree(SENSE_VERBS[(self.topic, self.mood)], self.hero.plural), "with")
        self.possessive()
        self.clue({"sense": (self.topic_at[1],)})
        self.say(self.words[self.topic_at[1]], ".")

    def filler(self) -> None:
        """Sentences with free choices (food, companions, weather): real language to learn, short-range clues.

        The opening words ("at noon", "on the way", "at night") say which verb follows the pronoun.
        """
        shape = self.rng.randrange(4)
        if shape == 0:
            self.say("at", "noon", ",")
            self.pronoun()
            self.verb("eat")
            self.say(self.rng.choice(["some", "the"]), self.rng.choice(FOODS), ".")
        elif shape == 1:
            self.say("on", "the", "way", ",")
            self.pronoun()
            self.verb("meet")
            self.say("a", self.rng.choice(ADJECTIVES), self.rng.choice(COMPANIONS), "near", "the",
                     self.rng.choice(OBJECTS)[0], ".")
        elif shape == 2:
            thing, verb = self.rng.choice(WEATHER)
            self.say("the", thing, verb, "over", "the", self.rng.choice(OBJECTS)[1], ".")
        else:
            self.say("at", "night", ",")
            self.pronoun()
            self.verb("sleep")
            self.say(*self.rng.choice(ENDINGS).split(), ".")

    def ending(self) -> None:
        """'at last , the fox quietly hums .'"""
        self.say("at", "last", ",")
        self.pronoun()
        self.say("quietly")
        self.mood_verb("quietly")
        self.say(".")

    def build(self) -> Story:
        self.say(STORY_START)
        self.opening()
        self.mood_sentence()
        middle = [self.relative_clause, self.two_verbs, self.ambiguous, self.filler, self.filler]
        middle += self.rng.sample([self.relative_clause, self.two_verbs, self.ambiguous, self.filler,
                                   self.mood_switch, self.mood_sentence], k=self.rng.randint(1, 4))
        self.rng.shuffle(middle)
        for sentence in middle:
            sentence()
        self.ending()
        return Story(self.words, self.clues)


def generate_story(rng: random.Random) -> Story:
    """One story drawn with `rng`; starts with the story separator token."""
    return _Builder(rng).build()


def generate_stories(n_stories: int, seed: int = 0) -> list[Story]:
    """`n_stories` stories from random.Random(seed): the same seed always gives the same stories."""
    if not isinstance(n_stories, int) or n_stories < 1:
        raise ValueError(f"n_stories must be a whole number >= 1, got {n_stories!r}")
    rng = random.Random(seed)
    return [generate_story(rng) for _ in range(n_stories)]


def join_stories(stories: list[Story]) -> Story:
    """Concatenate stories into one stream; clue positions are shifted to index the stream."""
    stream = Story()
    for story in stories:
        offset = len(stream.words)
        stream.words.extend(story.words)
        stream.clues.extend(
            Clue(c.target + offset, c.kind, tuple(p + offset for p in c.clues)) for c in story.clues
        )
    return stream


def story_vocabulary() -> list[str]:
    """Every word the story world can produce, sorted (separator first), independent of any seed."""
    words: set[str] = set(GRAMMAR_WORDS)
    for family in HEROES.values():
        for pair in family:
            words.update(pair)
    for names in NAMES.values():
        words.update(names)
    for forms in PRONOUNS.values():
        words.update(forms)
    for adverbs in MOOD_WORDS.values():
        words.update(adverbs)
    for row in MOOD_VERBS.values():
        for base in row.values():
            words.update((base, third_person(base)))
    words.update(MOOD_ADJECTIVES.values())
    for topic in TOPICS.values():
        words.update(topic["places"] + topic["things"] + [topic["word"]])
    for base in list(SENSE_VERBS.values()) + CLAUSE_VERBS + PLAIN_VERBS:
        words.update((base, third_person(base)))
    for pair in OBJECTS:
        words.update(pair)
    for phrase in TIMES + ENDINGS:
        words.update(phrase.split())
    for thing, verb in WEATHER:
        words.update((thing, verb))
    words.update(ADJECTIVES + FOODS + COMPANIONS + SKY)
    return [STORY_START, *sorted(words - {STORY_START})]


def example_stories() -> list[Story]:
    """A handful of short story-world passages, fixed forever, each showing the clue kinds at work."""
    return generate_stories(4, seed=2024)


def example_sentences() -> list[str]:
    """Short story-world sentences that each need clues of several kinds (for the explorer and chapters)."""
    return [
        "eagerly , the fox that crosses the wet streets smiles .",
        "sadly , the foxes that cross the old bridge sigh .",
        "one morning , the girl walks to the river with her boat . gladly , she goes to the bank and swims .",
        "one morning , the boy walks to the market with his coins . gladly , he goes to the bank and deposits .",
        "wearily , tom looks at the sky . then he quietly sobs and weeps .",
        "happily , the kings that climb the steep hills are glad .",
    ]
