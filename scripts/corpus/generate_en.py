"""Draws everyday English sentences from the grammar in grammar_en."""

import random
import sys

import grammar_en as g


class Generator:
    """Templates over the grammar, driven by one seeded random stream.

    Each template returns (text in lower case without final punctuation, the punctuation
    a written sentence ends with or None for a bare noun phrase[, split]), or None to draw
    again. `split` is (subject, the sentence with a pronoun for the subject) where apertium
    mistranslates a noun subject followed by the verb (see compose_spanish).
    """

    TEMPLATES = [("phrase", 22), ("copula", 18), ("transitive", 28), ("drink", 3),
                 ("intransitive", 12), ("there", 10), ("question", 4), ("with", 3)]

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def chance(self, p):
        return self.rng.random() < p

    def noun(self, allowed):
        """A noun from classes or single nouns named in `allowed`."""
        pool = [n for n in g.NOUNS if n["cls"] in allowed or n["sg"] in allowed]
        return self.pick(pool)

    def adjectives(self, noun, p_one=0.8, p_two=0.15):
        """None, one, or two adjectives (size or age before colour, as English orders them)."""
        adjs = noun["adjs"]
        if self.chance(p_two):
            first = [a for a in adjs if a in g.SIZE or a in g.NEW_OLD or a in g.YOUNG_OLD]
            second = [a for a in adjs if a in g.COLOUR]
            if first and second:
                return [self.pick(first), self.pick(second)]
        if self.chance(p_one):
            return [self.pick(adjs)]
        return []

    def noun_phrase(self, noun, plural=None, definite=None, p_adj=0.8, dets=g.SINGULAR_DETS):
        """Returns (text, is_plural, adjectives used)."""
        if plural is None:
            plural = self.chance(0.3)
        adjs = self.adjectives(noun, p_one=p_adj)
        body = " ".join(adjs + [noun["pl"] if plural else noun["sg"]])
        indefinite = definite is False or (definite is None and self.chance(0.3))
        if plural:
            det = self.pick(g.NUMBERS) if indefinite else self.pick(g.PLURAL_DETS)
        else:
            det = _an(body) if indefinite else self.pick(dets)
        return f"{det} {body}", plural, adjs

    def subject(self, classes, allow_pronoun=True, allow_singular=True):
        """Returns (text, takes third person singular verb, is a pronoun)."""
        if allow_pronoun and self.chance(0.4):
            word, third = self.pick(g.PRONOUNS)
            return word, third, True
        if self.chance(0.1):
            a = self.noun_phrase(self.noun(("kin", "person")), plural=False, p_adj=0.3)[0]
            b = self.noun_phrase(self.noun(("kin", "person")), plural=False, p_adj=0.3)[0]
            return f"{a} and {b}", False, False
        plural = None if allow_singular else True
        text, plural, _ = self.noun_phrase(self.noun(classes), plural=plural, p_adj=0.5)
        return text, not plural, False

    def t_phrase(self):
        text, _, adjs = self.noun_phrase(self.noun(g.CLASS_ADJS), p_adj=1.0)
        return (text, None) if adjs else None

    def t_copula(self):
        noun = self.noun(g.CLASS_ADJS)
        subj, plural, used = self.noun_phrase(noun, p_adj=0.5)
        preds = [a for a in noun["adjs"] if a not in g.NOT_PREDICATIVE and a not in used
                 and not any(_opposed(a, u) for u in used)]
        if not preds:
            return None
        past = self.chance(0.3)
        verb = ("were" if past else "are") if plural else ("was" if past else "is")
        pred = self.pick(preds)
        if self.chance(0.15):
            verb += " not"  # coordination is left out here: "no son baratas y anchos"
        elif self.chance(0.15):
            other = [a for a in preds if a != pred and not _opposed(a, pred)]
            if other:
                pred = f"{pred} and {self.pick(other)}"
        elif self.chance(0.1):
            pred = f"very {pred}"
        return f"{subj} {verb} {pred}", "."

    def t_transitive(self):
        base, third_form, past_form, objects = self.pick(g.TRANSITIVE)
        classes = ("person", "kin") + (("animal",) if base in g.ANIMAL_SUBJECT_VERBS else ())
        if base in g.PRONOUN_ONLY_VERBS:
            (subj, third), is_pronoun = self.pick(g.PRONOUNS), True
        else:
            subj, third, is_pronoun = self.subject(classes)
        obj = self.noun_phrase(self.noun(objects), dets=g.OBJECT_DETS)[0]
        if self.chance(0.1):
            obj += " and " + self.noun_phrase(self.noun(objects), plural=False,
                                              definite=False)[0]
        past = self.chance(0.4)
        if not past and is_pronoun and base in g.NEGATABLE_VERBS and self.chance(0.2):
            return f"{subj} {'does' if third else 'do'} not {base} {obj}", "."
        verb = past_form if past else (third_form if third else base)
        when = ""
        if base in g.TIMED_VERBS and self.chance(0.3):
            when = " " + self.pick(g.TIMES_PAST if past else g.TIMES_PRESENT)
        return f"{subj} {verb} {obj}{when}", "."

    def t_drink(self):
        subj, third, is_pronoun = self.subject(("person", "kin"))
        past = self.chance(0.4)
        verb = "drank" if past else ("drinks" if third else "drink")
        adj = self.pick(g.DRINK_ADJS) + " " if self.chance(0.7) else ""
        when = ""
        if self.chance(0.4):
            when = " " + self.pick(g.TIMES_PAST if past else g.TIMES_PRESENT)
        rest = f"{verb} {adj}{self.pick(g.DRINKS)}{when}"
        split = None if is_pronoun else (subj, ("he " if third else "they ") + rest)
        return f"{subj} {rest}", ".", split

    def t_intransitive(self):
        base, third_form, past_form, prep, places = self.pick(g.INTRANSITIVE)
        past = self.chance(0.4)
        pronoun = None
        if self.chance(0.6):
            subj, third, _ = self.subject(("person", "kin"), allow_pronoun=False)
            pronoun = "he" if third else "they"
        else:
            subj, third = self.pick(g.PRONOUNS)
        verb = past_form if past else (third_form if third else base)
        place = self.noun_phrase(self.noun(places), plural=False, p_adj=0.7,
                                 dets=g.OBJECT_DETS)[0]
        rest = f"{verb} {prep} {place}"
        return f"{subj} {rest}", ".", (subj, f"{pronoun} {rest}") if pronoun else None

    def t_there(self):
        prep, places = self.pick(g.LOCATIONS)
        where = self.noun(places.split(","))
        what, plural, _ = self.noun_phrase(self.noun(g.LOCATED), definite=False)
        past = self.chance(0.3)
        verb = ("were" if past else "are") if plural else ("was" if past else "is")
        place = " ".join(["the"] + self.adjectives(where, p_one=0.4, p_two=0.0) + [where["sg"]])
        return f"there {verb} {what} {prep} {place}", "."

    def t_question(self):
        base, _, _, objects = self.pick([v for v in g.TRANSITIVE if v[0] in g.NEGATABLE_VERBS])
        subj, third = self.pick(g.QUESTION_PRONOUNS)
        obj = self.noun_phrase(self.noun(objects), p_adj=0.9, dets=g.OBJECT_DETS)[0]
        return f"{'does' if third else 'do'} {subj} {base} {obj}", "?"

    def t_with(self):
        person = self.noun(("person", "kin"))
        garment = self.noun(("garment",))
        kin = self.pick([n for n in g.NOUNS if n["cls"] == "kin"
                         and n["female"] == person["female"]])
        return (f"the {person['sg']} with the {self.pick(g.COLOUR)} {garment['sg']} is "
                f"{self.pick(g.POSSESSIVES)} {kin['sg']}", ".")

    def sentence(self):
        total = sum(w for _, w in self.TEMPLATES)
        while True:
            r = self.rng.random() * total
            for name, weight in self.TEMPLATES:
                r -= weight
                if r < 0:
                    break
            made = getattr(self, "t_" + name)()
            if made is not None:
                return self.render(*made)

    def render(self, text, end, split=None):
        """Returns (the English sentence, the texts apertium translates for it). People type
        both "the red car is fast" and "The red car is fast.", so both forms occur."""
        if end is None:
            capital, end = self.chance(0.3), ""
        else:
            capital = self.chance(0.7)
            if not capital and end == ".":
                end = ""
        def cased(t):
            return t[0].upper() + t[1:] if capital else t
        parts = [cased(text) + end] if split is None else [cased(split[0]), cased(split[1]) + end]
        return cased(text) + end, parts

def _an(word):
    return "an" if word[0] in "aeiou" else "a"


def _opposed(a, b):
    return (a, b) in g.ANTONYMS or (b, a) in g.ANTONYMS


def compose_spanish(parts):
    """The Spanish for a sentence from the translations of its parts: for a split sentence,
    the subject followed by the pronoun sentence, whose pronoun Spanish drops ("my sister" +
    "she lives in a small town" -> "Mi hermana" + "vive en una ciudad pequeña"). None when
    the pronoun was kept after all."""
    if len(parts) == 1:
        return parts[0]
    subject, rest = parts[0].strip(), parts[1].strip()
    if not rest or rest.split()[0].lower() in ("él", "ella", "ellos", "ellas"):
        return None
    return f"{subject} {rest[0].lower()}{rest[1:]}"


def generate(count, seed=20240611):
    """`count` (sentence, parts to translate) pairs, the sentences distinct ignoring case,
    in the order drawn."""
    gen = Generator(seed)
    seen = set()
    out = []
    attempts = 0
    while len(out) < count and attempts < count * 50:
        attempts += 1
        sentence, parts = gen.sentence()
        if sentence.lower() not in seen:
            seen.add(sentence.lower())
            out.append((sentence, parts))
    return out


if __name__ == "__main__":
    for sentence, parts in generate(int(sys.argv[1]) if len(sys.argv) > 1 else 20):
        print(sentence if parts == [sentence] else f"{sentence}\t{' | '.join(parts)}")
