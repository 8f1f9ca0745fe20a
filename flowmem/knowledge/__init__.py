"""Knowledge about the people, places and things a user mentions, read from their words without an LLM:
entity mentions (:mod:`~flowmem.knowledge.entities`) and (subject, relation, object) triples with the time each
held (:mod:`~flowmem.knowledge.triples`)."""
