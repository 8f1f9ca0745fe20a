"""A memory's expanded key: the facts, names and dates its words carry, written out so recall finds them.

Raw text hides what a question asks for: "we moved into a flat in Alfama" answers "where do I live?"
without the word *live*; "I went to the support group yesterday", said on 8 May 2023, happened on
7 May 2023, a date no word of it names. The key says these things in the words a question uses, beside
the content (issue 14, point 3; the LongMemEval paper gets its recall gains from keys expanded with
facts). Offline, :func:`offline_key` builds it from rules already used elsewhere, so the key never
states what the write path does not already read:

* the single-valued facts of :mod:`flowmem.scoring.slots` ("lives in alfama; home alfama");
* the words of the turns a near-duplicate merge folded into the memory (``metadata["said_before"]``,
  :data:`SAID_BEFORE`): a merge keeps the newer wording as the content and one memory for the fact, and the
  earlier turns stay found by their own words, as they are listed among its sources;
* the caption of an image the message shared (``metadata["caption"]``, :data:`CAPTION`): "here's what I
  finished" says nothing a question asks for, its photo "a painting of a sunset over a lake" does (LoCoMo's
  turns carry such captions; LoCoMo dev R@10 0.763 → 0.775, single-hop 0.794 → 0.820, multi-hop 0.447 →
  0.443). Keyed, not embedded: in the turn's vector the caption lowered vector recall (R@20 0.419 → 0.384 on
  multi-hop);
* the other words of each relation the memory names (:mod:`flowmem.scoring.relations`): "manager" is
  asked about as "boss", "外婆" as "grandma", "parents" as "mom and dad" (sample questions right first
  69.2 % → 70.8 %, MRR 0.780 → 0.802; LoCoMo dev R@10 0.736 → 0.740, R@20 0.811 → 0.822);
* the times the words name, resolved against when they were said by the write path's own resolver
  (:func:`flowmem.timeexpr.extract_all`, tense-aware): "yesterday 7 May 2023 Sunday";
* when the memory was said and when its event happens, in words ("May 2023", a weekday name),
  since questions name months and weekdays, never ISO dates.

With an LLM, ``get_observation_op`` asks for a key with each fact ("lives in Lisbon; moved to Lisbon
in March 2024"), kept beside the words it describes in ``metadata["llm_key"]`` (:data:`LLM_KEY`) and
added to the offline key by :func:`expanded_key`; an edit or a merge that changes the words drops it
with them, as it drops their slots. The store base writes every memory through :func:`expanded_key`,
so every store holds the key
(``Memory.expanded_key``, exported with the memory) and lexical search indexes it
(:func:`flowmem.vector_store.lexical_text.lexical_document`), as does ``semantic_rank_op``'s offline
word overlap with ``overlap_text: document``. Embedding it with the content in one vector did not pay
(LoCoMo dev R@10 0.594 → 0.591, temporal 0.857 → 0.809; sample questions 66.1 % → 63.1 % right first),
so the vector stays the content's.
"""

from __future__ import annotations

from datetime import datetime

from flowmem.schema.memory import Memory
from flowmem.scoring.attributes import ATTRIBUTE
from flowmem.scoring.referents import KNOWN_AS, REFERS_TO
from flowmem.scoring.relations import relation_words
from flowmem.scoring.same_content import content_key
from flowmem.scoring.slots import DEFAULT_RULES, SlotRules, stored_slots
from flowmem.timeexpr import extract_all, has_time_words

# Each fact as questions ask for it, in English and Chinese (the languages the offline rules read): the verbs and
# nouns of "where do I live?", "what do I do for a living?", "我在哪家公司上班？". Lexical search does not stem, so
# the usual word forms are spelled out ("live", "lives"). Nothing here states more than the slot's value.
SLOT_PHRASES: dict[str, str] = {
    "residence": "lives in {v}; live; home; address; 住在 {v}",
    "living_with": "lives with {v}; live; home; household; 跟 {v} 住",
    "employer": "works at {v}; work; job; employer; company; office; 在 {v} 工作 上班; 公司",
    "job_title": "works as {v}; work; job; occupation; profession; for a living; 职业 {v}; 工作",
    "relationship_status": "relationship {v}; 感情 {v}",
    "partner": "partner {v}; 伴侣 {v}",
    "school": "studies at {v}; study; school; 在 {v} 上学; 学校",
    "major": "majors in {v}; major; subject; degree; 专业 {v}",
    "phone": "phone number {v}; 电话 {v}",
    "email": "email address {v}; 邮箱 {v}",
    "pet_name": "{k} named {v}; pet; name; 宠物 {v}",
    "diet": "diet {v}; eat; food; 饮食 {v}; 吃",
    ATTRIBUTE: "{k} {v}",  # "my GP is Dr Osei": "gp dr osei"
}
SPEAKER = "speaker"  # metadata: who said the turn, by name (speaker_match_op, dialogue_act_op read it)
CAPTION = "caption"  # metadata: what an image the message shared shows (its caption or alt text)
LLM_KEY = "llm_key"  # metadata: the key an LLM wrote for the memory's words (dropped when the words change)
# metadata: the earlier wordings a near-duplicate merge replaced (contra_repeat_op), each as said; keyed, so a question
# in the words of a merged turn still finds the memory that holds it (and lists that turn among its sources)
SAID_BEFORE = "said_before"
MAX_TIMES = 3  # a turn rarely names more than a few times; more would drown its facts in dates


def said_before(old: Memory, content: str, caption: object = None) -> list[str]:
    """The wordings ``old`` held before ``content`` replaced its own (a near-duplicate merge, a change written in):
    its earlier ones, its own, and its caption if ``caption`` is another, once each (the same words twice, or the new
    content's, add nothing), oldest first."""
    said = old.metadata.get(SAID_BEFORE)
    wordings = [str(w) for w in said] if isinstance(said, list) else []
    wordings.append(old.content)
    own_caption = old.metadata.get(CAPTION)
    if (
        isinstance(own_caption, str)
        and own_caption.strip()
        and (caption if caption is not None else own_caption) != own_caption
    ):
        wordings.append(own_caption)
    kept: dict[str, str] = {}
    for words in wordings:
        kept.setdefault(content_key(words), words)
    kept.pop(content_key(content), None)
    return list(kept.values())


def day_words(when: datetime) -> str:
    """``7 May 2023 Sunday``: a day as questions name it (day, month name, year, weekday)."""
    return f"{when.day} {when:%B} {when.year} {when:%A}"


def offline_key(memory: Memory, rules: SlotRules = DEFAULT_RULES) -> str:
    """The expanded key of ``memory`` from rules: its slot facts, the times it names resolved, its times in words.

    Parts are joined with ``"; "``; an empty string when the memory states no fact and has no known time.
    """
    parts: list[str] = []
    for slot, value in stored_slots(memory, rules).items():
        slot, _, person = slot.partition("@")  # someone else's: "residence@nana" is said as "nana lives in …"
        name, _, qualifier = slot.partition(":")
        template = SLOT_PHRASES.get(name, name.replace("_", " ") + " {v}")
        phrase = template.format(v=value, k=qualifier or name.replace("_", " "))
        parts.append(f"{person}: {phrase}" if person else phrase)
    speaker = memory.metadata.get(SPEAKER)
    if isinstance(speaker, str) and speaker.strip() and speaker.strip().lower() not in memory.content.lower():
        parts.append(speaker.strip())  # a piece of a turn that does not say who said it ("We're thinking about …")
    caption = memory.metadata.get(CAPTION)
    if isinstance(caption, str) and caption.strip():
        parts.append(" ".join(caption.split()))
    earlier = memory.metadata.get(SAID_BEFORE)
    if isinstance(earlier, list):
        parts += [" ".join(words.split()) for words in earlier if isinstance(words, str) and words.strip()]
    referents = memory.metadata.get(REFERS_TO)
    if isinstance(referents, list):  # "He's a physical therapist" said of Marcus is found by "what does Marcus do?"
        parts += [name for name in referents if isinstance(name, str) and name.strip()]
    known = memory.metadata.get(KNOWN_AS)
    if isinstance(known, list):  # "Leah left teaching" said of "my sister Leah" is found by "what does my sister do?"
        said_as = " ".join(word for word in known if isinstance(word, str) and word.strip())
        parts += [said_as, *relation_words(said_as)] if said_as else []
    relations = relation_words(memory.content)
    if relations:
        parts.append(" ".join(relations))
    said = memory.message_time
    if said is not None and has_time_words(memory.content):
        times = extract_all(memory.content, said, lean="neutral", weeks_ahead="day")[:MAX_TIMES]
        # A time written with digits ("May 17", "at 9 am") is in the words already; "yesterday" is not.
        written = [t for t in times if any(c.isdigit() for c in t.expression)]
        for found in times:
            if found in written:
                continue
            # "next Friday, May 17" said on a Wednesday: the written date says which Friday. A relative time
            # that falls outside every date the text writes out is left out rather than keyed with a wrong day.
            if written and not any(w.start <= found.start < w.end for w in written):
                continue
            parts.append(f"{found.expression} {_span_words(found.start, found.end, found.granularity)}")
    event = memory.event_time
    if event is not None:
        parts.append(f"happens {day_words(event)}")
    if said is not None:
        parts.append(f"said {day_words(said)}")
    return "; ".join(dict.fromkeys(parts))  # once each, in order


def _span_words(start: datetime, end: datetime, granularity: str) -> str:
    if granularity in ("hour", "day"):
        return day_words(start)
    if granularity in ("month", "season", "year"):
        return f"{start:%B} {start.year}" if granularity == "month" else f"{start.year}"
    # week, weekend, range: the first day names it (a question asks "the week of 8 May")
    return f"from {day_words(start)}"


def expanded_key(memory: Memory, rules: SlotRules = DEFAULT_RULES) -> str:
    """The key stored with ``memory``: :func:`offline_key`, then the LLM's key for these words if it has one."""
    llm_key = memory.metadata.get(LLM_KEY)
    parts = [offline_key(memory, rules), " ".join(llm_key.split()) if isinstance(llm_key, str) else ""]
    return "; ".join(part for part in parts if part)


def with_expanded_key(memory: Memory, rules: SlotRules = DEFAULT_RULES) -> Memory:
    """``memory`` carrying the :func:`expanded_key` of its words as they are now.

    Always rebuilt, never kept from before: an edit or a merge changes the words, and a key must not
    describe words a memory no longer has (the key is cheap: a few regular expressions).
    """
    key = expanded_key(memory, rules)
    return memory if key == memory.expanded_key else memory.model_copy(update={"expanded_key": key})
