"""Single-valued facts ("slots") a person has one of at a time: where they live, where they work, their partner, ...

The write path uses them to notice a superseded fact: "I live in Oakland" then "we just moved to
Berkeley" fill the ``residence`` slot twice with different values, so the newer replaces the older.
:data:`BUILTIN_SLOTS` is the one declarative table of them (English and Chinese); a deployment adds
patterns or whole slots with ``contra_repeat_op``'s ``slots`` param, e.g.
``op.contra_repeat_op.params.slots.blood_type=['my blood type is (?P<v>\\w+)']``.

A pattern is a regular expression (matched case-insensitively; ``(?-i:...)`` for a part that must be
capitalised, such as a name) with a named group ``v``: the value. An optional group ``k`` qualifies the
slot, so "my dog Rex" fills ``pet_name:dog`` and "my cat Mimi" ``pet_name:cat`` — two slots, not a
contradiction. Anything no slot covers is left to near-duplicate detection (or to the LLM policy).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from flowmem.scoring.attributes import attribute_slots
from flowmem.scoring.mixed import unmixed
from flowmem.scoring.name_kinds import KINDS
from flowmem.scoring.occupations import EN_OCCUPATION, ZH_OCCUPATION
from flowmem.scoring.others import for_someone_unnamed, people_readings, people_slots, said_of_someone
from flowmem.scoring.people import PERSON_NOUN, THIRD_PERSON_VERBS, ZH_SOMEONE
from flowmem.scoring.restated import RESTATES, as_said_by_user
from flowmem.scoring.values import WHEN_KINDS, find_values

if TYPE_CHECKING:
    from flowmem.schema.memory import Memory

_V = r"(?P<v>(?:[^.,!?;:\n，。！？；]|(?<=\d)[.,](?=\d)){2,60})"  # free text up to the end of the clause (not £1,000)
# A Chinese value, or a Latin name written in Chinese text with its capitalised words (住Tiong Bahru的…).
_ZH = r"(?P<v>[A-Za-z][A-Za-z0-9'&-]*(?:\s[A-Z][A-Za-z0-9'&-]*)*|[^，。！？；,.!?;\s]{1,20})"
_NAME = r"(?P<v>(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?))"  # a capitalised name, one or two words
_WEIGHT = (
    r"(?P<v>\d{2,3}(?:\.\d)?\s*(?:kg|kgs|kilos?|lbs?|pounds)|\d{1,2}\s*stone(?:\s+\d{1,2}(?:\s*(?:lbs?|pounds))?)?)\b"
)
_ZH_WEIGHT = r"(?P<v>[\d一二三四五六七八九十百两.]{1,6}(?:公斤|斤|kg))"
_ZH_WHEN = (  # when, and how soon or how long: 下个月要搬去…, 暂时住…
    r"(?:今天|昨天|前天|明天|后天|大后天|今晚|上周|上个月|去年|今年|最近|刚刚?|已经|终于|现在|目前|也|还|一直|下个?月|这个?月|本月"
    r"|下下?周|这周|本周|周末|[上下这本]学期|过[两几]天|马上|很快|明年|暂时|先|要|会|打算|准备"
    r"|(?:下|这|本|上)?(?:周|星期|礼拜)[一二三四五六日天]|月[初底]|年[初底]|[0-9一二三四五六七八九十]{1,3}号)*"
)
_ADV = r"(?:(?:now|still|currently|just|recently|finally|also|officially)\s+)*"
# The speaker and someone, as a subject: "me and the kids", "my husband and I", "Hannah & me" (what they do, the
# speaker does)
_WE_PAIR = r"(?:me|i)\s+(?:and|&)\s+(?:the\s+|my\s+|our\s+)?[\w'-]+|(?:my\s+)?[\w'-]+\s+(?:and|&)\s+(?:i|me)"
_PLACE = r"(?P<v>(?-i:[A-Z])[\w'’-]+(?:\s+(?-i:[A-Z])[\w'’-]+){0,2})"  # a place named: capitalised, one to three words
_PARTNER = r"(?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|spouse)"
_PET = (
    r"(?P<k>dog|puppy|cat|kitten|rabbit|bunny|parrot|hamster|horse|pony|turtle|tortoise|fish|budgie|guinea\s+pig|ferret"
    r"|gecko|lizard|snake|retriever|labrador|terrier|spaniel|collie|poodle|beagle|pug|dachshund|husky|greyhound|tabby)"
)
_ZH_PET = r"(?P<k>狗|小狗|狗狗|猫|小猫|猫咪|兔子|鹦鹉|仓鼠|乌龟|金鱼|柯基|泰迪|金毛|柴犬|哈士奇|布偶|英短|橘猫)"
# "live in a one-bedroom apartment in Temescal", "moved into our new flat in Alfama": the place is after the home.
_HOME = (
    r"(?:(?:a|an|the|my|our|their|his|her)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:apartment|flat|house|home|place|condo|studio|loft|room|cottage|bungalow|\d[-\s]?bed(?:room)?"
    r"|(?:one|two|three|four)[-\s]bed(?:room)?|house\s?share|flat\s?share)\s+(?:in|at|near|on)\s+)?"
)
_DWELLING = r"(?:apartment|flat|house|home|place|condo|studio|cottage|bungalow|room|\d-bed)"
_WITH = r"(?:和|跟)[^，。！？；,.!?;\s]{1,12}?"  # 我和我的狗旺财住在… : a companion between the subject and the verb
# Job titles are open-ended, so "I'm a …" counts only when it ends in an occupation ("I'm a big fan" does not).
_JOB = EN_OCCUPATION
_ZH_JOB = ZH_OCCUPATION
# 一家游戏公司, 一家外企: where one works is an organisation
_ZH_ORG = r"(?:公司|集团|银行|医院|学校|大学|工厂|工作室|店|事务所|外企|国企|央企|私企|企业)"
# What one does at work, as Chinese names a job by its function (在华通物流做数据分析, 在一家电商做运营):
# "在 X 做 <function>" says where one works only with one of these after it (在健身房做有氧 is a workout).
_ZH_FUNCTION = (
    r"(?:数据分析|分析|运营|产品|销售|设计|开发|研发|测试|市场|财务|会计|人事|行政|客服|法务|采购|编辑|翻译|咨询|"
    r"技术|算法|前端|后端|运维|项目|管理|策划|审计|投资|教研)"
)
_SCHOOL_NAME = (
    r"(?P<v>(?-i:[A-Z][\w'’-]*)(?:\s+(?-i:[A-Z][\w'’-]*))*\s+(?:primary|secondary|high|academy|college|school|nursery"
    r"|kindergarten|elementary|middle|sixth\s+form)(?:\s+school)?)\b"
)
_EMAIL = r"(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
_PHONE = r"(?P<v>\+?\d[\d\s().-]{4,20}\d)"

# Taking up a job, whoever the employer: the words of it (_TAKING_UP), and what makes a clause not tell of it (a
# denial, a supposition or wish, an application or interview, a former job, someone else's job).
_TAKING_UP = (
    r"(?:(?:got|been|was|get|getting)\s+hired|onboarding|start\s+date|job|role|position|gig"
    # taken on by an employer, or lured to one ("got taken on at Boots", "got poached by Sparks Ltd")
    r"|taken\s+on|poached|headhunted"
    # an offer is a job's only in a message about work (not "an offer from Zoopla on the flat")
    r"|offer(?=[\s\S]*\b(?:start\s+date|job|role|position|salary|hired|notice|resign\w*|boss|team|colleagues)\b))"
)
_NOT_TAKEN = (
    r"(?:(?!\b(?:not|never|no|didn't|did\s+not|don't|won't|if|whether|might|maybe|hope|hoping|wish|want|would|could"
    r"|should|turned|declined?|declining|rejected|reject|appl(?:y|ied|ying)|interview\w*|waiting|considering|thinking"
    rf"|old|former|previous|ex|his|her|their|its|your|he|she|they|{PERSON_NOUN})\b|[a-z]+['’]s\b)[^.!?,;:\n])"
)
_WORK_NEWS = r"job|work|role|offer|resign\w*|notice|boss|salary|hired|contract|colleagues|onboarding"
BUILTIN_SLOTS: dict[str, tuple[str, ...]] = {
    "residence": (
        rf"\b(?:i|we|{_WE_PAIR})\s+{_ADV}(?:live|stay)\s+(?:on\s+(?:my|our|his|her|their)\s+own\s+|alone\s+|by\s+(?:myself|himself|herself)\s+"
        rf"|with\s+(?:[\w'-]+\s+){{1,3}}?)?(?:in|at|near)\s+{_HOME}{_V}",
        rf"\b(?:i|we)(?:'ve|\s+have)?\s+{_ADV}(?:moved|relocated)\s+(?:back\s+)?(?:home\s+)?(?:to|into)\s+{_HOME}{_V}",
        # living somewhere since a time: "I've been living in Berlin since January"
        rf"\b(?:i|we)(?:'ve|\s+have)\s+{_ADV}been\s+(?:living|based|renting)\s+(?:with\s+(?:[\w'-]+\s+){{1,3}}?)?in\s+{_V}",
        # a home acquired, named where it is ("completed on the house in Bath", "signed the lease for a place in
        # Brixton", "got a place out in Swords", "picked up the keys to a flat in Leith")
        rf"(?:^|[.!?,;]\s*|\b(?:i|we)(?:'ve|\s+have)?\s+)(?:just\s+|finally\s+|officially\s+)?(?:got|found|bought|rented"
        rf"|completed\s+on|signed\s+(?:the\s+)?(?:lease|contract|papers|tenancy)\s+(?:for|on)|moved\s+into"
        rf"|picked\s+up\s+the\s+keys\s+(?:to|for))\s+(?:a|an|the|our|my)\s+(?:own\s+|new\s+)?"
        rf"(?:(?!(?:holiday|summer|weekend|second|rental|investment|buy-to-let|hotel)\b)[\w-]+\s+){{0,2}}?{_DWELLING}(?:,\s+(?:a|an)\s+(?:[\w-]+\s+){{0,2}}?{_DWELLING})?\s+(?:out\s+|over\s+|up\s+|down\s+)?"
        rf"(?:in|at|near)\s+{_PLACE}",
        # one of a place's people now: "We're Jersey City people now", "I'm a Walthamstow girl now"
        rf"\b(?:i|we)(?:'m|'re|\s+am|\s+are)\s+(?:a\s+|an\s+)?(?:proper\s+|official\s+|officially\s+)?{_PLACE}\s+"
        rf"(?:people|person|residents?|locals?|girl|boy|guy|gal|folks?|family)\s+now\b",
        # a place arrived in that is home now: "Just landed in Vancouver, this is home now"
        rf"\b(?:in|to)\s+{_PLACE}[^.!?;\n]{{0,30}}?\b(?:this|it|that|which)(?:\s+is|['’]s)\s+(?:my\s+|our\s+)?home\s+now\b",
        # whom one lives with now, when that is the news: "mum's moved in with us", "I moved in with Jess"
        rf"\b(?:i|we)(?:'ve|\s+have)?\s+{_ADV}moved\s+in\s+with\s+(?P<v>us|me|them|(?:my|our|his|her|their)\s+[\w-]+"
        rf"|(?-i:[A-Z])[\w'-]+)",
        # a companion between the verb and the place: "living with his girlfriend in Leeds now"
        rf"\b(?:i|we)(?:'re|'m|\s+are|\s+am)\s+{_ADV}(?:living|based|renting|staying)\s+"
        rf"(?:with\s+(?:[\w'-]+\s+){{1,3}}?)?in\s+{_HOME}{_V}",
        # "home is Manchester these days", "my home is now in Leeds"
        rf"(?:^|[.!?]\s+|\bmy\s+)home\s+is\s+(?:now\s+|still\s+)?(?:in\s+)?{_V}",
        # "we rent a flat in Didsbury", "we bought a house in Stockport": the home named, then its place
        rf"\b(?:i|we|me\s+and\s+\w+|\w+\s+and\s+(?:i|me))(?:'ve|\s+have|'re|\s+are)?\s+{_ADV}"
        rf"(?:rent|rented|renting|bought|buy|own)\s+"
        rf"(?:a|an|the|our|my)\s+(?:[\w-]+\s+){{0,3}}?(?:apartment|flat|house|home|place|condo|studio|loft|room|cottage"
        rf"|bungalow|terrace|semi|\d-bed(?:room)?|(?:one|two|three|four)-bed(?:room)?)\s+(?:in|at|near)\s+{_V}",
        # the keys to one's new home: "got the keys to our house in Haxby today"
        rf"\b(?:got|picked\s+up|have|collected)\s+(?:the|our|my)\s+keys\s+(?:to|for)\s+(?:our|my)\s+(?:new\s+)?"
        rf"(?:apartment|flat|house|home|place|condo|studio|cottage|bungalow)\s+(?:in|at)\s+{_V}",
        # "my home is in Leeds", "our flat in Alfama": where one's own home is.
        rf"\b(?:my|our)\s+(?:own\s+|new\s+)?(?:home|house|flat|apartment|condo)(?:\s+is|['’]s)?\s+(?:now\s+)?in\s+{_V}",
        # a new home named where it is, whoever's words ("new apartment in Denver is tiny", "found a flat in Edinburgh",
        # "got our own place in Slough"): a home found or new is where one lives (or is about to)
        rf"(?:^|[.!?,;]\s*|\b(?:my|our|the|a)\s+)new\s+(?:apartment|flat|house|home|place|condo|pad|digs)\s+(?:is\s+)?"
        rf"(?:in|at|near|on)\s+{_PLACE}",
        # settled in, relocating to, back in, the move done: "finally settled in Denver", "relocating to Denver next
        # week", "I'm back in Vancouver now", "we're in Sheffield now", "the move to Hove is done"
        rf"(?:^|[.!?,;]\s*|\b(?:i|we)(?:'ve|'re|'m|\s+have|\s+are|\s+am)?\s+)(?:just\s+|finally\s+|now\s+|all\s+)?"
        rf"(?:settled\s+in|relocat(?:ed|ing)\s+to|moving\s+(?:back\s+)?to)\s+{_PLACE}",
        rf"\b(?:i|we)(?:'m|'re|\s+am|\s+are)\s+back\s+in\s+{_PLACE}",
        rf"\b(?:i|we)(?:'m|'re|\s+am|\s+are)\s+in\s+{_PLACE}\s+now\b(?!\s+(?:for|till|until)\b)",
        rf"\bthe\s+move\s+to\s+{_PLACE}\s+(?:is\s+)?(?:done|happened|finished|complete)",
        # staying or living with someone somewhere, the subject left out: "currently staying with my sister in Glasgow"
        rf"(?:^|[.!?,;]\s*)(?:currently\s+|still\s+|now\s+)?(?:living|staying|based)\s+"
        rf"(?:(?:with|at)\s+(?:[\w'’-]+\s+){{1,3}}?)?in\s+{_PLACE}",
        rf"我们?{_ZH_WHEN}(?:{_WITH})?{_ZH_WHEN}(?:一个人|自己|单独)?住(?![院过的])(?!在?一起)在?{_ZH}",
        rf"(?:我们?家?|自己){_ZH_WHEN}在(?P<v>[^，。！？；,.!?;\s]{{1,12}}?)租(?:了|房子?|的房)",
        rf"(?:租|住)的(?:房子|地方|公寓)(?:在|是){_ZH}",
        rf"我们?(?:全家|一家人?|俩|两个|几个)?{_ZH_WHEN}(?:{_WITH})?{_ZH_WHEN}搬家?(?:到|去|进|(?:来|回)(?![跟和]))了?{_ZH}",
        rf"我家{_ZH_WHEN}在{_ZH}",
        # 新家在通州: where the new home is (a sentence leaves out its speaker)
        rf"(?:^|[，。！？；\s]|我的?|我们的?)(?:新家|新房子?|住处|住的地方)(?:现在)?在{_ZH}",
        # 跟我们来北京住了, 到杭州住下了: came somewhere to live
        rf"我们?{_ZH_WHEN}(?:{_WITH})?{_ZH_WHEN}(?:来|到|去)(?P<v>[^，。！？；,.!?;\s]{{1,8}}?)(?:住|定居|安家)(?:了|下)",
        # 在老家县城住: where one lives, said before the verb (not 在酒店住了一晚: a stay)
        rf"我们?{_ZH_WHEN}(?:一个人|自己)?在(?P<v>[^，。！？；,.!?;\s]{{2,10}}?)住着?(?=[，。！？；,.!?;\s]|$)",
        # 已经在深圳定居了: settled there
        rf"我们?{_ZH_WHEN}在(?P<v>[^，。！？；,.!?;\s]{{2,10}}?)(?:定居|安家|扎根)(?:了|下来?)?(?=[，。！？；,.!?;\s]|$)",
        # 被我舅接到城里住了: taken in by someone, somewhere to live
        rf"我们?{_ZH_WHEN}(?:被[^，。！？；,.!?;\s]{{1,4}}?)?接(?:到|去|来)(?P<v>[^，。！？；,.!?;\s]{{1,8}}?)(?:住|生活)",
        # 搬来跟我们一起住了: whom one lives with now, when that is the news
        rf"我们?{_ZH_WHEN}(?:搬来|搬过来|搬回来|搬去)(?:跟|和)(?P<v>[^，。！？；,.!?;\s]{{1,6}}?)(?:一起)?住",
        # a home that is an institution: "Grandma's in a care home now", "I'm in halls this year"
        rf"\b(?:i|we)(?:'m|'re|\s+am|\s+are)\s+{_ADV}(?:in|into)\s+(?P<v>(?:a|the)\s+(?:care|nursing|retirement)\s+home"
        # …named ("Grandad's in Ashgrove care home")
        r"|(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?\s+(?:care|nursing|retirement)\s+home"
        r"|sheltered\s+housing|(?:student\s+)?halls|assisted\s+living)\b"
        r"(?=\s*(?:$|[.,;!?—-]|(?:now|this|since|for|near|in|at|with|and)\b))",
    ),
    # whom one lives with (not where): "living at my parents' for now", "staying with my mum", 跟爸妈住在一起; alone
    # (搬出来自己住了): a new household supersedes the old wherever either is
    "living_with": (
        rf"(?:^|[.!?,;]\s*|\b(?:i|we)(?:'m|'re|\s+am|\s+are)?\s+)(?:currently\s+|still\s+|now\s+)?(?:living|staying|live)"
        rf"\s+(?:with|at)\s+(?P<v>(?:my|our)\s+(?:{PERSON_NOUN})(?:['’]s?)?)(?=\s*(?:[.!?,;]|$|\s+(?:for\s+now|at\s+the"
        r"\s+moment|now|these\s+days)\b))",
        rf"我们?{_ZH_WHEN}(?:和|跟)(?P<v>[^，。！？；,.!?;\s]{{1,6}}?)(?:一起)?住在?一起",
        rf"我们?{_ZH_WHEN}(?:搬出(?:来|去)了?[，,]?\s*)?(?P<v>自己|一个人|单独)住(?:了|着)?(?=[，。！？；,.!?;\s]|$)",
    ),
    "employer": (
        rf"\bi\s+{_ADV}work\s+(?:at|for)\s+{_V}",
        # what or when one works said between ("I work nights at Tesco", "I work part-time for the NHS", "I work in
        # retail at Next"), and the work named by its verb ("I teach maths at Oakwood High", "I drive for Uber")
        rf"\bi\s+{_ADV}work\s+(?:in\s+)?(?:[\w-]+\s+){{1,2}}?(?:at|for)\s+(?:the\s+)?{_PLACE}",
        rf"\bi\s+{_ADV}(?:teach|lecture|nurse|drive|deliver|ride|cook|clean)\s+(?:[\w-]+\s+){{0,2}}?(?:at|for)\s+"
        rf"(?:the\s+)?{_PLACE}",
        # a job or role said with its employer, whoever's words ("I'm a PM at Dell", "new gig at Lumen", "got the job
        # at the bakery", "took a full-time job at Pentagram", "starting at Lumen Health on Monday")
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:an?\s+)(?!(?:student|pupil|member|regular|patient|customer|guest|client|fan|"
        rf"volunteer)\b)(?:[\w-]+\s+){{1,3}}?at\s+{_PLACE}",
        rf"(?:^|[.!?,;]\s*|\b(?:my|a|the)\s+)new\s+(?:job|gig|role|position|post)\s+(?:is\s+)?(?:at|with)\s+{_V}",
        rf"(?:^|[.!?,;]\s*|\bi(?:'ve|\s+have)?\s+)(?:just\s+|finally\s+)?(?:got|landed|accepted|took|started)\s+"
        rf"(?:the|a|that|my)\s+(?:new\s+)?(?:(?:full|part)-time\s+)?(?:[\w-]+\s+){{0,2}}?(?:job|role|position|offer|post)\s+"
        rf"(?:at|with)\s+{_V}",
        rf"(?:^|[.!?,;]\s*)(?:just\s+|finally\s+)?(?:start(?:ed|ing)|join(?:ed|ing))\s+(?:at|with)\s+{_PLACE}",
        rf"\bi\s+{_ADV}work\s+as\s+(?:a|an)\s+(?:[\w-]+\s+){{0,3}}?(?:at|for)\s+{_V}",
        rf"\bi(?:'m|\s+am)\s+{_ADV}working\s+(?:at|for)\s+{_V}",
        # the work named by its verb ("I'm driving for Bolt now", "I'm teaching at Brookside this year")
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:driving|delivering|riding|teaching|lecturing|nursing|cooking|cleaning)\s+"
        rf"(?:[\w-]+\s+){{0,2}}?(?:at|for)\s+(?:the\s+)?{_PLACE}",
        rf"\bi(?:'ve|\s+have|'m|\s+am)?\s+{_ADV}(?:start(?:ed|ing)?|join(?:ed|ing)?)\s+(?:a\s+new\s+job\s+)?(?:at|with)\s+{_V}",
        rf"\bi(?:'ve|\s+have)?\s+{_ADV}got\s+a\s+(?:new\s+)?job\s+(?:at|with)\s+{_V}",
        rf"\b(?:my\s+)?(?:first|last)\s+day\s+(?:at|of\s+work\s+at)\s+{_V}",
        rf"\bmy\s+new\s+(?:job|employer|company)\s+is\s+{_V}",
        # one employer left for another ("jumped ship to PwC")
        rf"\bjump(?:ed|ing)?\s+ship\s+to\s+(?:the\s+)?{_PLACE}",
        # the job named by its employer ("got the Deliveroo job"), employed by one, joined as a job ("joined Revolut as
        # a product manager"), working for oneself ("I'm freelance now", "gone self-employed")
        rf"\bgot\s+the\s+{_PLACE}\s+(?:job|role|position|gig|offer)\b",
        rf"\bi(?:'m|\s+am)\s+{_ADV}employed\s+by\s+(?:the\s+)?{_PLACE}",
        rf"\bjoin(?:ed|ing)?\s+(?:the\s+)?{_PLACE}\s+as\s+(?:a|an)\s+{_JOB}",
        rf"\bi(?:'m|\s+am|'ve\s+gone|\s+have\s+gone|\s+went)\s+{_ADV}(?:fully\s+)?(?P<v>freelance|self[-\s]employed)\b",
        # where one is, in a message about work ("new job!! I'm at Monzo now", "I'm now at Sainsbury's head office")
        rf"^(?=[\s\S]*\b(?:{_WORK_NEWS}|office|colleagues?|started|starting)\b)[\s\S]*?\bi(?:'m|\s+am)\s+{_ADV}at\s+"
        rf"(?:the\s+)?{_PLACE}(?=\s+(?:now|these\s+days|head\s+office|hq)\b|\s*[,.!?]|\s*$)",
        # a contract signed in a message about a job ("signed my contract with Nando's, start Monday")
        rf"^(?=[\s\S]*\b(?:job|role|start(?:ing|s)?|work|hired|offer)\b)[\s\S]*?\bsigned\s+(?:my|the|a)\s+"
        rf"(?:new\s+)?(?:employment\s+)?contract\s+(?:with|at)\s+(?:the\s+)?{_PLACE}",
        rf"\bmy\s+(?:new\s+)?(?:job|work|workplace)\s+is\s+(?:now\s+)?(?:at|with|for)\s+{_V}",
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:a|an)\s+{_JOB}\s+(?:at|for)\s+{_V}",
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:[\w-]+\s+){{1,2}}?{_JOB}\s+(?:at|for)\s+(?:the\s+)?{_PLACE}",
        # training with an employer ("I'm doing my apprenticeship with Halls Electrical", "doing an internship at Arup")
        rf"\bi(?:'m|\s+am)\s+{_ADV}doing\s+(?:my|his|her|their|an?|the)\s+(?:[\w-]+\s+)?(?:apprenticeship|internship"
        rf"|placement|residency|traineeship|training\s+contract|pupillage)\s+(?:with|at)\s+(?:the\s+)?{_PLACE}",
        # a job taken up, the organisation named after its word in the clause ("accepted the offer from Pizza Express",
        # "onboarding at Arup this week", "took a full-time job as a photo editor at Reuters")
        rf"(?:^|[.!?,;:]\s*){_NOT_TAKEN}{{0,40}}?(?<!\blast\s)\b{_TAKING_UP}\b{_NOT_TAKEN}{{0,40}}?\b(?:at|with|from|by)\s+"
        rf"(?:the\s+)?{_PLACE}",
        # an organisation joined or signed with, in a message about work ("handed in my notice, joining KPMG in May")
        rf"^(?=[\s\S]*\b(?:{_WORK_NEWS})\b)[\s\S]*?(?:^|[.!?,;:]\s*){_NOT_TAKEN}{{0,30}}?\b"
        rf"(?:join(?:ing|ed)?|signed\s+(?:on\s+)?with)\s+(?:the\s+)?{_PLACE}\b(?!\s+(?:for|at|and|on|in|to)\b)",
        rf"我{_ZH_WHEN}在(?P<v>[^，。！？；,.!?;\s]{{1,20}}?)(?:工作|上班)",
        # 在医院当护士, 在餐馆打工, 在工地上干活, 去超市当收银员: the verbs of working somewhere (not 在家: home)
        # the verbs that name no job first: 在麦当劳打工 works at 麦当劳 (its 当 is not "work as")
        rf"(?:我|^|[，。！？；\s]){_ZH_WHEN}(?:在|去了?|到了?)(?:一家|一个)?(?!家里?[打干实]|[这那](?:里|儿|边)?[打干实])(?P<v>[^，。！？；,.!?;\s]{{1,16}}?)"
        r"(?:打工|实习(?!生)|干活|兼职)",
        rf"(?:我|^|[，。！？；\s]){_ZH_WHEN}(?:在|去了?|到了?)(?:一家|一个)?(?!家里?当|[这那](?:里|儿|边)?当)(?P<v>[^，。！？；,.!?;\s]{{1,16}}?)"
        r"当(?![时中然初])",
        rf"我{_ZH_WHEN}(?:入职|加入)了?{_ZH}",
        # 跳槽去了一家国企: a job left for another, the speaker left out
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}跳槽(?:去|到)了?(?:一家)?{_ZH}",
        rf"我{_ZH_WHEN}在(?:一家)?(?P<v>[^，。！？；,.!?;\s]{{1,16}}?{_ZH_ORG})(?:做|当|上班|工作|卖|修|送|教|管|干)",
        # 下个月开始去国企上班了: the place one goes to work at now (not 去公司上班: any day's commute)
        rf"(?:我|^|[，。！？；\s]){_ZH_WHEN}(?:开始|改|换)?(?:去|到)(?!公司|单位|班上)(?:一家)?(?P<v>[^，。！？；,.!?;\s]{{1,12}}?)"
        r"(?:上班|工作)了",
        rf"(?<![他她它])(?:我|，|^){_ZH_WHEN}是(?P<v>[^，。！？；,.!?;\s]{{1,12}}?)的{_ZH_JOB}",
        rf"我{_ZH_WHEN}在(?:一家)?(?P<v>[^，。！？；,.!?;\s]{{2,12}}?)(?:做|干|搞)(?={_ZH_FUNCTION}|{_ZH_JOB})",
        # a job taken up, the employer named by its word: 拿到了平安的offer, 签了顺丰, 被腾讯录了, 跳到瑞幸
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}(?:拿到了?|收到了?)(?P<v>[^，。！？；,.!?;\s的]{{1,12}})的(?:offer|录用|工作)",
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}签了(?!字|合同|协议|名|约|证)(?P<v>[^，。！？；,.!?;\s了]{{2,12}})"
        rf"(?=[，。！？；,.!?;\s]|$)",
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}被(?P<v>[^，。！？；,.!?;\s]{{1,12}}?)录(?:用)?了",  # not 录取: a school's
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}(?:跳到|跳去|跳槽去|去了?)(?P<v>[^，。！？；,.!?;\s]{{1,12}}?)(?:报到|入职)",
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}跳(?:到|去)了?(?P<v>[^，。！？；,.!?;\s了]{{1,12}})(?=了|[，。！？；,.!?;\s]|$)",
        # 我在广州一家外贸公司: where one is, named as a company, is where one works
        rf"我{_ZH_WHEN}在(?:[^，。！？；,.!?;\s]{{1,4}})?一家(?P<v>[^，。！？；,.!?;\s]{{1,12}}?{_ZH_ORG})(?=[，。！？；,.!?;\s]|$)",
        # …and after a comma, the speaker said before (她说…，现在在成都一家游戏公司)
        rf"[，,]\s*{_ZH_WHEN}在(?:[^，。！？；,.!?;\s]{{1,4}})?一家(?P<v>[^，。！？；,.!?;\s]{{1,12}}?{_ZH_ORG})(?=[，。！？；,.!?;\s]|$)",
        # 去了拼多多，还是客服: a place gone to, the same work said there
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}(?:去了|到了|换到了?)(?P<v>[^，。！？；,.!?;\s]{{2,12}}?)[，,]\s*(?:还是|也是|还做|继续做|还当|继续当)(?:{_ZH_JOB}|{_ZH_FUNCTION})",
        # 他调到杭州了, 我老公被调去深圳了: a person moved by their work to another place (not 调到周五: a time moved)
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}(?:被)?调(?:到|去|回)了?"
        rf"(?![\d一二三四五六七八九十下上这本]*(?:周|星期|礼拜|月|号|点|天)|静音|最|大|小)"
        rf"(?P<v>[^，。！？；,.!?;\s了的]{{2,12}}?)(?:工作|上班|分公司|总部)?(?=了|[，。！？；,.!?;\s]|$)",
        # 现在在小米: where one is now, in a message about work (从华为出来了，现在在小米)
        r"^(?=.*(?:上班|工作|公司|跳槽|入职|离职|辞职|出来了|单位|offer|老板|同事))(?:.*?[，。！？；\s])?我"
        r"(?:现在|目前|如今)在(?P<v>[^，。！？；,.!?;\s在]{2,10}?)(?:上班|工作)?(?=做|当|干|搞|负责|[，。！？；,.!?;\s]|$)",
        # 启明能源第一天报到: the first day at a place of work (a sentence leaves out its speaker)
        r"(?:^|[，。！？；\s]|我)(?:今天|明天)?(?:去|在)?(?P<v>[^，。！？；,.!?;\s]{2,12}?)第一天(?:报到|上班|入职)",
    ),
    "job_title": (
        rf"\bi\s+{_ADV}work\s+as\s+(?:a|an)\s+{_V}",
        rf"\bi(?:'m|\s+am)\s+{_ADV}working\s+as\s+(?:a|an)\s+{_V}",
        rf"\bmy\s+(?:new\s+)?(?:job\s+title|title|role|position)\s+is\s+{_V}",
        rf"\bi(?:'ve|\s+have)?\s+{_ADV}(?:got|been|was)?\s*promoted\s+to\s+{_V}",
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:a|an)\s+(?P<v>{_JOB})\b",
        rf"\bi(?:'ve|\s+have)?\s+{_ADV}(?:became|become)\s+(?:a|an)\s+(?P<v>{_JOB})\b",
        # a tenure told of the speaker's job ("started as a junior accountant", "week two as a paramedic", "my first
        # day as a teacher"): the sentence's own subject, or none (texting leaves out the "I")
        rf"(?:\bi\s+{_ADV}(?:start(?:ed)?|began|retrained|qualified|trained)|(?:^|[.!?]\s+|\bmy\s+)(?:[\w-]+\s+)?(?:day|week|month|year|shift)"
        rf"(?:\s+[\w-]+)?)\s+as\s+(?:a|an)\s+(?P<v>{_JOB})",
        # hired as one, or a job taken as one ("got hired as a dental nurse", "took a job as a photo editor at Reuters")
        rf"(?:^|[.!?,;:]\s*|\bi(?:'ve|\s+have|\s+was|'m|\s+am)?\s+){_ADV}(?:got\s+|been\s+|getting\s+)?"
        rf"(?:hired|employed|taken\s+on|brought\s+on|signed\s+on)\s+as\s+(?:a|an)\s+(?P<v>{_JOB})",
        rf"(?:^|[.!?,;:]\s*|\bi(?:'ve|\s+have)?\s+)(?:just\s+|finally\s+)?(?:got|landed|accepted|took|started|found"
        rf"|starting)\s+(?:a|the|my|that)\s+(?:new\s+)?(?:(?:full|part)-time\s+)?(?:job|role|position|post|gig)\s+as\s+"
        rf"(?:a|an)\s+(?P<v>{_JOB})",
        rf"(?<![他她它])(?:我|现在|目前){_ZH_WHEN}是(?:一[名位个])?(?P<v>{_ZH_JOB})",
        r"我是一[名位个](?P<v>[^，。！？；,.!?;\s]{1,12})",
        rf"我{_ZH_WHEN}(?:的职位|的职务|的工作|的岗位|岗位)是{_ZH}",
        rf"我{_ZH_WHEN}在(?:一家)?[^，。！？；,.!?;\s]{{1,16}}?{_ZH_ORG}(?:做|当)(?P<v>[^，。！？；,.!?;\s]{{1,8}})",
        rf"我{_ZH_WHEN}(?:升职|晋升|升)(?:为|成|到)了?{_ZH}",
        # 考上了公务员: a post won by its exam (not 考上了大学: a school)
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}考上了?(?P<v>{_ZH_JOB}|编制|事业编|教师编)",
        # 在医院当护士, 去超市当收银员: what one works as there; 转行做产品经理了: a new line of work
        rf"(?:我|^|[，。！？；\s]){_ZH_WHEN}(?:在|去了?|到了?)(?:一家|一个)?(?!家里?当)[^，。！？；,.!?;\s]{{1,16}}?当(?!时|中|然|初)"
        r"(?![^，。！？；,.!?;\s]*?(?:打工|实习(?!生)|干活|兼职))"
        r"(?P<v>[^，。！？；,.!?;\s了]{1,8})",
        rf"(?:我|^|[，。！？；\s]){_ZH_WHEN}(?:转行|改行)(?:去|了)?(?:做|当|干)(?P<v>[^，。！？；,.!?;\s了]{{1,8}})",
        # 当店长, 现在当组长: what one works as, said at a clause's start (not 当时, 当然)
        rf"(?:^|[，。！？；\s]){_ZH_WHEN}当(?![时然中初])(?P<v>{_ZH_JOB}|[^，。！？；,.!?;\s了]{{1,3}}长)(?=了|[，。！？；,.!?;\s]|$)",
    ),
    "relationship_status": (
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?P<v>single|married|engaged|divorced|separated|widowed|in\s+a\s+relationship)\b",
        rf"\b(?:i|we)\s+{_ADV}got\s+(?P<v>married|engaged|divorced|separated)\b",
        rf"\b(?:we|and\s+i)(?:'ve|\s+have)?\s+{_ADV}(?P<v>broken\s+up|broke\s+up|split\s+up)\b",
        # "we're not together anymore", "jake and me aren't together any more": a couple no longer
        rf"\b(?:we|{_WE_PAIR})(?:'re|\s+are)\s*(?P<v>not|n't)\s+together\s+(?:any\s?more|now)\b",
        rf"我们?{_ZH_WHEN}(?:{_WITH})?{_ZH_WHEN}(?P<v>结婚|订婚|离婚|单身|分手)了?",
        # "I've been seeing someone", 我有男朋友了, 脱单了: no longer single
        r"\bi(?:'ve\s+been|\s+have\s+been|'m|\s+am)\s+(?P<v>seeing|dating)\s+(?:someone|somebody|a\s+(?:guy|girl|man|woman))\b",
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}有(?P<v>男朋友|女朋友|对象)了",
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}(?P<v>脱单)了?",
    ),
    "partner": (
        rf"\bmy\s+(?:new\s+)?{_PARTNER}(?:'s\s+name\s+is|\s+is\s+called|\s+is\s+named|\s+is|,)?\s+{_NAME}",
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:dating|seeing|married\s+to|engaged\s+to)\s+{_NAME}",
        r"(?:我的?|现在的|新)(?:老公|老婆|丈夫|妻子|男朋友|女朋友|男友|女友|对象|伴侣|未婚夫|未婚妻)(?:叫|是)"
        r"(?P<v>[^，。！？；,.!?;\s]{1,10})",
    ),
    "school": (
        rf"\bi\s+{_ADV}(?:study|studied)\s+at\s+{_V}",
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:studying|enrolled)\s+at\s+{_V}",
        rf"\bi(?:'m|\s+am)\s+{_ADV}an?\s+(?:student|undergrad|undergraduate|grad\s+student|phd\s+student)\s+at\s+{_V}",
        rf"\bi\s+{_ADV}(?:go\s+to|attend)\s+(?P<v>[^.,!?;:\n]{{2,60}}?(?:school|college|university|academy|institute))\b",
        # "transferred to X" is a school only when the sentence says so ("this semester", "university").
        rf"\bi(?:'ve|\s+have)?\s+{_ADV}transferred\s+to\s+"
        rf"(?=[^.!?\n]*\b(?:semester|term|school|college|universit\w*|politecnico|degree)\b){_V}",
        rf"我{_ZH_WHEN}在(?P<v>[^，。！？；,.!?;\s]{{1,20}}?)(?:读书|上学|读大学|读研|念书)",
        rf"我{_ZH_WHEN}转学到了?{_ZH}",
        # 在实验小学读二年级, 现在在育才小学: a school named by its kind
        rf"我{_ZH_WHEN}在(?![上读念])(?P<v>[^，。！？；,.!?;\s在]{{1,12}}?(?:小学|中学|初中|高中|大学|学院|幼儿园|学校))",
        # "I'm at Oakfield Primary", "started at Kingsway secondary": a place named as a school by its own words
        rf"\bi(?:'m|\s+am)?\s+{_ADV}(?:at|attending|started\s+at|starting\s+at|moved\s+to)\s+{_SCHOOL_NAME}",
        # a school year said with its school: "I'm in year 2 at St Peter's", "starting grade 5 at Lincoln"
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:in|starting|going\s+into|moving\s+up\s+to)\s+(?:year|grade|class|form|p|y)\s*"
        rf"\d{{1,2}}\s+at\s+(?:the\s+)?{_PLACE}",
        rf"我{_ZH_WHEN}就读于{_ZH}",
        # a stage of school said bare (我儿子在上幼儿园, 儿子今年上一年级了): the school one is in now
        rf"我{_ZH_WHEN}(?:在|开始|已经)?上(?P<v>幼儿园|托班|小学|初中|高中|大学|[一二三四五六]年级|[初高][一二三])"
        r"(?=了|$|[，。！？；,.!?;\s])",
    ),
    "phone": (
        rf"\bmy\s+(?:new\s+)?(?:phone|mobile|cell)(?:\s+phone)?(?:\s+number)?\s+is\s+{_PHONE}",
        rf"\bmy\s+(?:new\s+)?number(?:\s+is|['’]s)\s+(?:now\s+)?{_PHONE}",
        rf"(?:^|[,.!?]\s*)(?:phone\s+|mobile\s+)?number(?:\s+is|['’]s)\s+(?:now\s+)?{_PHONE}",
        rf"\bnew\s+(?:phone\s+|mobile\s+|cell\s+)?number(?:\s+is|:)\s*{_PHONE}",
        rf"\b(?:call|text|reach)\s+me\s+(?:at|on)\s+{_PHONE}",
        rf"我的?(?:新)?(?:手机|电话)(?:号码?)?(?:是|换成了?|改成了?)\s*{_PHONE}",
        rf"新(?:手机|电话)?号码?(?:是|：|:)\s*{_PHONE}",
        # 手机号换了，现在是139…: the number said after the words that it changed
        rf"(?:手机|电话)号码?(?:换了|改了|变了)[，,\s]*(?:现在|新的)?(?:是|：|:)?\s*{_PHONE}",
    ),
    # one's own weight, a measure that holds until it is weighed again ("I weigh 82kg", "weighed myself, 78kg",
    # "I'm down to 11 stone", 我现在六十五公斤, 体重一百二十斤)
    "weight": (
        rf"\bi\s+{_ADV}weigh\s+(?:about\s+|around\s+)?{_WEIGHT}",
        rf"\bweighed\s+(?:myself|in)\b[^.!?\d]{{0,24}}?{_WEIGHT}",
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:down|up)\s+to\s+{_WEIGHT}",
        rf"\bmy\s+weight\s+is\s+(?:now\s+)?{_WEIGHT}",
        rf"(?:我{_ZH_WHEN}(?:的?体重)?(?:是|才|只有)?|体重{_ZH_WHEN}(?:是|有|才|只有)?){_ZH_WEIGHT}(?=了|[，。！？；,.!?;\s]|$)",
    ),
    # one's age, which holds until a birthday ("I'm 34", "I turned 35 today", "I'm 8 months old", 我今年三十二岁); of
    # one's people and pets through their readings ("Biscuit is 2", "Leo's 8 now": age@biscuit, age@leo)
    "age": (
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:only\s+)?(?P<v>\d{{1,3}})(?:\s+(?:years?|yrs?)(?:\s+old)?|\s*(?:yo|y/o))?"
        rf"(?=\s*(?:$|[.!?,;)]|(?:now|today|this\s+year|and|but|lol|haha|btw)\b))",
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?P<v>\d{{1,2}}\s+(?:months?|weeks?))\s+old\b",
        rf"\bi\s+{_ADV}turned\s+(?P<v>\d{{1,3}})\b(?!\s*(?:%|percent|degrees|pages|miles|km|times|minutes|hours)\b)",
        rf"我{_ZH_WHEN}(?:今年)?(?:满|已经)?(?P<v>[\d一二三四五六七八九十两]{{1,4}})(?:周)?岁",
    ),
    "email": (
        rf"\bmy\s+(?:new\s+)?e-?mail(?:\s+address)?\s+is\s+(?:now\s+)?{_EMAIL}",
        rf"\b(?:switched|changed|moved|updated)\s+my\s+e-?mail(?:\s+address)?\s+to\s+{_EMAIL}",
        rf"\b(?:reach|email|e-mail|contact|write\s+to)\s+me\s+at\s+{_EMAIL}",
        rf"(?:^|[.!?]\s+|\bbest\s+)e-?mail(?:\s+address)?(?:\s+for\s+me)?\s+is\s+(?:now\s+)?{_EMAIL}",
        rf"我的?(?:新)?(?:邮箱|电子邮件|邮件地址)(?:地址)?(?:是|换成了?|改成了?)\s*{_EMAIL}",
        rf"我(?:换了|的新)(?:邮箱|电子邮件)[^。！？]{{0,8}}?(?:用|是)\s*{_EMAIL}",
    ),
    "pet_name": (
        rf"\b(?:my|our)\s+(?:\w+\s+)?{_PET}(?:'s\s+name\s+is|\s+is\s+called|\s+is\s+named|\s+named|\s+called|,)?\s+{_NAME}",
        rf"\b(?:i|we)\s+(?:have|got|adopted)\s+(?:a|an)\s+(?:[\w-]+\s+){{0,2}}?{_PET}\s+(?:named|called)\s+{_NAME}",
        rf"我们?(?:的|家|养的)?(?:的)?{_ZH_PET}(?:的名字)?(?:叫|是)(?P<v>[^，。！？；,.!?;\s]{{1,10}})",
        rf"我{_ZH_WHEN}(?:养了|有)(?:一只|一条|只|条)?(?:名)?叫(?P<v>[^，。！？；,.!?;\s]{{1,6}}?)的{_ZH_PET}",
        rf"我{_ZH_WHEN}(?:养了|有)(?:一|两|三)?(?:只|条)?{_ZH_PET}[，,]?(?:名字)?叫(?P<v>[^，。！？；,.!?;\s]{{1,6}})",
    ),
    "major": (
        rf"\bmy\s+(?:new\s+)?major\s+is\s+(?:now\s+)?{_V}",
        rf"\bi(?:'m|\s+am)\s+{_ADV}majoring\s+in\s+{_V}",
        rf"\b(?:switched|changed)\s+my\s+major\s+to\s+{_V}",
        r"专业(?:现在|目前|也|还)?(?:是|换成了?|改成了?|转成了?)(?P<v>[^，。！？；,.!?;]{1,30}?)(?=[，。！？；,.!?;\s]|$)",
        r"转专业了?[，,\s]*(?:现在|目前)?(?:读|学|念)(?P<v>[^，。！？；,.!?;]{1,30}?)(?=[，。！？；,.!?;]|$)",
    ),
    # Not working: the end of a job, said without naming it ("got laid off today", 今天被优化了).
    "employment": (
        rf"\bi(?:'ve|\s+have)?\s+{_ADV}(?:got|been|was)\s+{_ADV}(?P<v>laid\s+off|fired|let\s+go|made\s+redundant|sacked)\b",
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?P<v>unemployed|between\s+jobs|out\s+of\s+work|jobless)\b",
        # at home with the children instead of at work ("I'm a stay at home mum now")
        rf"\bi(?:'m|\s+am)\s+{_ADV}(?:a\s+)?(?:full[-\s]time\s+)?(?P<v>stay[-\s]at[-\s]home)\s+(?:mum|mom|dad|parent)\b",
        # let go by the employer, said of it ("Tesco let me go", "Google laid me off"), or notice handed in
        r"\b(?P<v>let\s+me\s+go|laid\s+me\s+off|fired\s+me|sacked\s+me|made\s+me\s+redundant)\b",
        r"\b(?P<v>hand(?:ed)?|gave|put|turned|sent|submitted|tendered)\s+(?:in\s+)?my\s+(?:notice|resignation)\b",
        rf"\bi(?:'ve|\s+have)?\s+{_ADV}(?P<v>resigned)\b(?!\s+(?:myself|to)\b)",
        r"\b(?P<v>laid\s+off)\s+(?:[\w'-]+\s+){0,5}?(?:including|incl\.?)\s+me\b",
        rf"\bi(?:'ve|\s+have)?\s+{_ADV}(?P<v>quit|resigned\s+from|left)\s+my\s+job\b",
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}被(?P<v>裁员?|优化|辞退|开除)了?",
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}(?:从[^，。！？；,.!?;\s]{{1,12}}?)?(?P<v>离职|辞职|失业)了",
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}(?P<v>不上班|没上班|待业)了?",
        # a job changed for one not named: "changed jobs", "got a new job!", 跳槽了, 换工作了 (the old employer is over)
        rf"\bi(?:'ve|\s+have)?\s+{_ADV}(?P<v>changed\s+jobs|switched\s+jobs|got\s+a\s+new\s+job)\b(?!\s+(?:at|with)\b)",
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}(?P<v>跳槽|换工作)了(?![^，。！？；]{{0,3}}(?:去|到))",
        # 今天跟领导提了离职: handed in one's notice (the speaker left out, as chats do)
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}(?:跟[^，。！？；,.!?;\s]{{1,4}})?(?:提了?|递了?|交了?)(?P<v>离职|辞职)",
    ),
    "diet": (
        rf"\b(?:i(?:'m|\s+am|'ve\s+been|\s+have\s+been)|being)\s+(?:a\s+)?{_ADV}(?P<v>vegetarian|vegan|pescatarian)\b",
        r"\bi(?:'ve|\s+have)?\s+(?:been\s+)?(?:decided\s+to\s+)?(?:start(?:ed)?\s+|begun\s+)?eat(?:ing)?\s+"
        r"(?P<v>fish|meat|chicken)\s+again\b",
        # "I eat fish now", "eating meat these days": what one eats now
        rf"\bi(?:'m|\s+am)?\s+{_ADV}eat(?:ing)?\s+(?P<v>fish|meat|chicken)\s+(?:now|these\s+days|nowadays)\b",
        rf"我{_ZH_WHEN}(?:是|吃)(?P<v>素|全素|纯素)",
        # 现在开始吃鱼了, 又吃肉了: what one eats again, a state reached (了)
        rf"(?:^|[，。！？；\s]|我){_ZH_WHEN}(?:开始|又)?吃(?P<v>鱼|肉|荤)了",
    ),
}

# Statements that a slot's value is no more: "Nibbles passed away" ends whatever slot holds "nibbles" (a pet's
# name, a partner). The ``v`` group is the value that ended; only memories holding exactly it are affected.
_ZH_AGO = r"(?:今天|昨天|前天|上周|上个月|去年|最近|[一二三四五六七八九十\d]{1,2}月份?)?"
ENDINGS: tuple[str, ...] = (
    rf"\b{_NAME}\s+(?:has\s+|just\s+|was\s+|got\s+)?(?:passed\s+away|died|ran\s+away|went\s+missing"
    r"|crossed\s+the\s+rainbow\s+bridge|(?:been\s+)?put\s+to\s+sleep|(?:been\s+)?rehomed)",
    rf"\b(?:we|i)\s+(?:just\s+|had\s+to\s+)?(?:rehome|rehomed|re-homed)\s+{_NAME}",
    rf"\b(?:we|i)\s+(?:just\s+)?(?:lost|had\s+to\s+put\s+down|said\s+goodbye\s+to)\s+{_NAME}",
    rf"\b(?:we|i)\s+(?:just\s+)?(?:had\s+to\s+)?put\s+{_NAME}\s+(?:to\s+sleep|down)\b",
    rf"\b{_NAME}\s+and\s+i\s+(?:just\s+)?(?:broke\s+up|split\s+up|separated|got\s+divorced|divorced)",
    rf"\bi\s+(?:just\s+)?(?:broke\s+up|split\s+up)\s+with\s+{_NAME}",
    rf"\bi(?:'ve|\s+have)?\s+{_ADV}(?:left|quit)\s+(?:my\s+job\s+at\s+)?{_V}",
    # where one no longer is ("no longer at Acme", "not with Vodafone any more")
    r"(?:^|[.!?,;:]\s*|\bi(?:'m|\s+am)\s+)(?:no\s+longer|not)\s+(?:working\s+)?(?:at|with|for)\s+"
    r"(?-i:(?P<v>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,3}))(?=\s*(?:any\s?more\b|,|\.|!|;|$))",
    rf"(?:^|[，。！？；：:\s])(?P<v>[^，。！？；：:\s]{{1,6}}?){_ZH_AGO}(?:去世|死|走丢|跑丢|送人|送走|没)了",
    # 旺旺前天走了: "went" said of when is a death (走了 alone is also "left")
    r"(?:^|[，。！？；：:\s])(?P<v>[^，。！？；：:\s]{1,6}?)(?:今天|昨天|前天|上周|上个月|去年|最近|早上|晚上|半夜)走了",
    # 我的猫团团走了: a pet gone is dead (the pet noun says so)
    rf"(?:猫|狗狗?|兔子|仓鼠|鹦鹉|乌龟)(?P<v>[^，。！？；：:\s的]{{1,4}}?){_ZH_AGO}走了",
    rf"我(?:和|跟)(?P<v>[^，。！？；：:\s]{{1,6}}?){_ZH_AGO}(?:分手|离婚)了",
    # a place of work left, named before the leaving (麦当劳那边辞了, 4S店不干了, 奶茶店的兼职辞掉了)
    r"(?:^|[，。！？；：:\s])(?![我他她你]|工作|兼职)(?P<v>[^，。！？；：:\s的]{1,8}?)(?:那边|这边)?(?:的(?:工作|兼职|活|班))?(?:已经|早就|也)?"
    r"(?:不干了|不做了|辞了|辞掉了|辞职了)",
)

# A place or a name ends where a time, a companion or a reason begins: "berkeley last week with sam" → "berkeley".
_VALUE_END = re.compile(
    r"\s+(?:last|this|next|since|with|and|but|because|for|as|so|when|after|before|until|today|tonight|yesterday|at|in|"
    r"still|lol|haha|btw|tbh|though|rn|"
    r"tomorrow|now|recently|already|again|ago|on\s+(?:the|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(?:a|one|two|three|four|five|six|a\s+few|a\s+couple\s+of|several|\d+)\s+(?:days?|weeks?|months?|years?)|"
    r"in\s+(?:\d|january|february|march|april|may|june|july|august|september|october|november|december))\b",
    re.I,
)
_VALUE_STRIP = "了啦呢吧啊 "
# 朝阳双井这边 → 朝阳双井; 北京跟我们一起住 → 北京 (a companion after the place)
_ZH_VALUE_END = re.compile(r"(?:这边|那边|这里|那里|附近|一带)$|(?<=[\u4e00-\u9fff]{2})(?:跟|和)[\u4e00-\u9fff]{1,6}$")
# Values that say the same thing in other words: "I'm vegetarian" and 我吃素 agree; "fish again" does not.
VALUE_ALIASES: dict[str, str] = {
    "素": "vegetarian", "吃素": "vegetarian", "全素": "vegan", "纯素": "vegan",
    "结婚": "married", "订婚": "engaged", "离婚": "divorced", "单身": "single", "分手": "broke up",
    "broken up": "broke up", "split up": "broke up", "not": "broke up", "n't": "broke up",
    # working for oneself is one employer, however said
    "myself": "self-employed", "freelance": "self-employed", "self employed": "self-employed",
    "stay": "not working",  # "a stay at home mum" (its value cut before "at")
    # What one eats again is a diet: fish again agrees with "pescatarian", meat or chicken with neither.
    "fish": "pescatarian", "meat": "eats meat", "chicken": "eats meat", "鱼": "pescatarian", "肉": "eats meat",
    "荤": "eats meat",
    **dict.fromkeys(("seeing", "dating", "男朋友", "女朋友", "对象", "脱单"), "in a relationship"),
    **dict.fromkeys(("laid off", "fired", "let go", "made redundant", "sacked", "unemployed", "between jobs",
                     "out of work", "jobless", "quit", "resigned from", "left", "裁", "裁员", "优化", "辞退", "开除",
                     "离职", "辞职", "失业", "不上班", "没上班", "待业"), "not working"),
    **dict.fromkeys(("changed jobs", "switched jobs", "got a new job", "跳槽", "换工作"), "changed jobs"),
    **dict.fromkeys(("let me go", "laid me off", "fired me", "sacked me", "made me redundant"), "not working"),
    **dict.fromkeys(("hand", "handed", "gave", "put", "turned", "sent", "submitted", "tendered", "resigned"),
                    "not working"),  # … my notice (the employment slot's only)
}  # fmt: skip
# A state that ends another slot's: single again ends the partner, not working the employer and the title, a new
# employer the not working. ``*``: any value. Read with the person the slot is qualified by (partner@cleo).
ENDS: dict[str, dict[str, tuple[str, ...]]] = {
    "relationship_status": dict.fromkeys(("single", "broke up", "divorced", "separated", "widowed"), ("partner",)),
    "employment": {"not working": ("employer", "job_title"), "changed jobs": ("employer",)},
    "employer": {"*": ("employment",)},
}
# Qualifiers that name the same kind: "my puppy Rex" and 我的狗叫旺财 both fill ``pet_name:dog``.
_KINDS = {
    "puppy": "dog",
    "kitten": "cat",
    "bunny": "rabbit",
    "狗": "dog",
    "小狗": "dog",
    "狗狗": "dog",
    "猫": "cat",
    "小猫": "cat",
    "猫咪": "cat",
    "兔子": "rabbit",
    "鹦鹉": "parrot",
    "仓鼠": "hamster",
}


@dataclass(frozen=True)
class SlotMatch:
    """One slot a text fills.

    Attributes:
        slot: The slot's name, qualified when its pattern has a ``k`` group (``pet_name:dog``).
        value: The value, lower case, spaces collapsed ("milan").
        start: Where the statement starts in the text.
        end: Where the value ends in the text (before any time or companion words that followed it).
    """

    slot: str
    value: str
    start: int
    end: int


READ_MEMO = 4096  # texts whose slots a SlotRules remembers (SlotRules.slots_of)


class SlotRules:
    """Compiled slot patterns: :data:`BUILTIN_SLOTS` plus a deployment's own.

    Args:
        extra: More patterns by slot name; a known name gains them, a new name is a new slot.

    Raises:
        ValueError: A pattern that does not compile or has no ``v`` group, naming the slot and the pattern.
    """

    def __init__(self, extra: Mapping[str, Sequence[str]] | None = None):
        table: dict[str, list[str]] = {name: list(patterns) for name, patterns in BUILTIN_SLOTS.items()}
        for name, patterns in (extra or {}).items():
            table.setdefault(name, []).extend(patterns)
        self.patterns: dict[str, list[re.Pattern[str]]] = {
            name: [_compile(name, p) for p in patterns] for name, patterns in table.items()
        }
        self.endings = [_compile("(ending)", p) for p in ENDINGS]
        # The patterns a text without a Chinese character can match: a built-in one with a Chinese character outside its
        # character classes needs one (each of them does; tests/unit/scoring/test_slots.py checks it on every English
        # text of the evaluations); a deployment's own are always run.
        builtin = {p for patterns in BUILTIN_SLOTS.values() for p in patterns}
        self._latin = {
            name: [p for p in patterns if p.pattern not in builtin or not _CJK_NAME.search(_CLASSES.sub("", p.pattern))]
            for name, patterns in self.patterns.items()
        }
        # What slots_of read, by (text, who): the write path reads a new memory's slots when it decides and again when
        # it keys it (flowmem.scoring.keys), and the same message's words in more than one op.
        self._read: dict[tuple[str, str | None], dict[str, str]] = {}
        # What find matched, by text: slots_of reads one text as its speaker's and as a named user's, and the same
        # sentence again in the readings of the people it speaks of (half of an ingest's finds were repeats).
        self._found: dict[str, tuple[SlotMatch, ...]] = {}

    def find(self, text: str) -> list[SlotMatch]:
        """Every slot ``text`` fills, the first statement of each, in the order they are said. A built-in Chinese
        pattern is not run on a text without a Chinese character (it cannot match; English texts skip 43 of the
        table's patterns)."""
        known = self._found.get(text)
        if known is None:
            if len(self._found) >= READ_MEMO:
                del self._found[next(iter(self._found))]  # the oldest
            known = self._found[text] = tuple(self._find(text))
        return list(known)

    def _find(self, text: str) -> list[SlotMatch]:
        found: dict[str, SlotMatch] = {}
        chinese = _CJK_NAME.search(text) is not None
        for name, patterns in (self.patterns if chinese else self._latin).items():
            for pattern in patterns:
                for match in pattern.finditer(text):
                    slot_match = _slot_match(name, match)
                    if slot_match is not None and slot_match.slot not in found and _asserted(text, slot_match):
                        found[slot_match.slot] = slot_match
        return sorted(found.values(), key=lambda m: m.start)

    def slots_of(self, text: str, who: str | None = None) -> dict[str, str]:
        """``{slot: value}`` of every single-valued fact ``text`` states (of ``who``, when it names them: an LLM's
        "Alice lives in Milan" is read as "I live in Milan"; a sentence without its subject, "started at Spoke City
        today", as "I started at Spoke City today"), and ``{slot@person: value}`` of those it states about other
        people ("Nana moved into Rosehill": ``residence@nana``, :mod:`flowmem.scoring.others`)."""
        found = self._read.get((text, who))
        if found is None:
            said = first_person(unmixed(text), who)
            subjected = with_subject(said)
            people = people_slots(said, lambda reading: self.find(with_subject(reading)))
            theirs = {(slot.partition("@")[0], value) for slot, value in people.items()}
            # what a sentence opening with someone else states is theirs, not the speaker's too ("Tom got poached by
            # Sparks Ltd": Tom's employer), unless its words name the speaker ("Shopify laid off my team including me")
            own = [
                m
                for m in self.find(subjected)
                if ((m.slot, m.value) not in theirs
                    or not said_of_someone(subjected, m.start)
                    or _NAMES_SPEAKER.search(subjected[m.start :].split(".")[0]) is not None)
                and not for_someone_unnamed(subjected, m.start)  # "first day at Globex for her": hers
            ]  # fmt: skip
            found = {**{m.slot: m.value for m in own}, **people}
            # any other attribute said with a copula ("my commute is…"); one a built-in slot holds is that slot's
            found.update({slot: value for slot, value in attribute_slots(said).items() if value not in found.values()})
            if len(self._read) >= READ_MEMO:
                del self._read[next(iter(self._read))]  # the oldest
            self._read[(text, who)] = found
        return dict(found)  # the caller's own: a change to it changes nothing here

    def ended(self, text: str, who: str | None = None) -> set[str]:
        """The values ``text`` says are no more ("Nibbles passed away" → ``{"nibbles"}``), whatever slot holds them."""
        found = set()
        # the speaker's words, and each other person's as they would say them ("My sister Leah left Dell": "I left
        # Dell"; whose it was, the caller checks)
        said = first_person(text, who)
        for reading in [said, *(reading for _, reading, _ in people_readings(said))]:
            for pattern in self.endings:
                for match in pattern.finditer(reading):
                    ended = _slot_match("(ending)", match)
                    if ended is not None:
                        found.add(ended.value)
        return found


_VERBS = "|".join(THIRD_PERSON_VERBS)
_AS_I = re.compile(rf"\bI\s+(?P<verb>{_VERBS})\b")
_CJK_NAME = re.compile(r"[\u4e00-\u9fff]")
_CLASSES = re.compile(r"\[(?:\\.|[^\]])*\]")  # a regex's character classes: [^，。！？], [\u4e00-\u9fff]


def first_person(text: str, who: str | None) -> str:
    """``text`` about ``who`` (by name, or "the user") said as ``who`` would say it: "Alice's dog is called Rex"
    → "my dog is called Rex", "Alice Chen lives in Milan" → "I live in Milan", "Alice and Sam moved to Berkeley"
    → "we moved to Berkeley", 小王住在米兰 → 我住在米兰.

    The slot patterns are first-person; an LLM, or a file of memories, writes about the user in the third
    person. ``who`` is named by the id as written (``alice_chen`` also as "alice chen"), or by its first word
    followed by a capitalised surname ("Alice Chen" for ``alice``).
    """
    name = who.strip() if who else ""
    if _CJK_NAME.search(text):  # no spaces to find a name by: a Chinese name, or 用户, is the subject
        said = text.replace(name, "我") if _CJK_NAME.search(name) else text
        return said.replace("该用户", "我").replace("用户", "我")
    subject = _subject(name)
    alone = r"(?<![\w.@-])", r"(?![\w@-]|\.\w)"  # a word of its own, not part of "wang.li@example.org"
    other = rf"(?:(?:her|his|their)\s+[a-z]+(?:\s+{_CAPITAL})?|{_CAPITAL}(?:\s+{_CAPITAL})?)"  # Sam, her sister Grace
    said = re.sub(rf"{alone[0]}(?:(?:{subject})\s+and\s+{other}|{other}\s+and\s+(?:{subject})){alone[1]}", "we", text,
                  flags=re.I)  # fmt: skip
    said = re.sub(rf"{alone[0]}(?:{subject})(?:'s|’s){alone[1]}", "my", said, flags=re.I)
    said = re.sub(rf"{alone[0]}(?:{subject}){alone[1]}", "I", said, flags=re.I)
    if said == text:
        return text
    return _AS_I.sub(lambda m: f"I {THIRD_PERSON_VERBS[m.group('verb')]}", said)


_CAPITAL = r"(?-i:[A-Z][a-z][\w'-]*)"  # a capitalised word: a name, or a surname after the user's name


@lru_cache(maxsize=256)
def _subject(name: str) -> str:
    """A pattern for the ways a text names the person ``name`` identifies, and "the user"."""
    words = [w for w in re.split(r"[\s_.\-]+", name) if w]
    if not words:
        return "the user"
    # The id's words ("alice chen" for alice_chen), or its first word, with a surname after it or not: the id
    # "alice" names "Alice" and "Alice Chen". The longest first: an alternation takes the first that matches.
    full = r"\s+".join(map(re.escape, words))
    first = rf"{re.escape(words[0])}(?:\s+{_CAPITAL})?"
    return rf"{full}|{first}|the user" if len(words) > 1 else rf"{first}|the user"


def _compile(name: str, pattern: str) -> re.Pattern[str]:
    try:
        compiled = re.compile(pattern, re.I)
    except re.error as exc:
        raise ValueError(f"slot {name!r}: pattern {pattern!r} is not a regular expression ({exc})") from None
    if "v" not in compiled.groupindex:
        raise ValueError(f"slot {name!r}: pattern {pattern!r} needs a named group (?P<v>...) for the value")
    return compiled


# Texting drops the subject: a sentence that opens with a verb of the past or a verb the slots follow "I" with.
_NO_SUBJECT = re.compile(r"(?:^|(?<=[.!?;\n])\s*)(?=(?:[a-z]+ed|got|left|quit|live|work)\b)", re.I)
_NO_SUBJECT_DOING = re.compile(
    r"(?:^|(?<=[.!?;\n])\s*)(?=(?:(?:now|currently|still|also)\s+)?(?:living|working|moving|staying|renting|teaching|driving"
    r"|nursing|studying)\b)",
    re.I,
)


# The same in Chinese: a clause that opens with where one lives, works or studies (现在住通州了, 在一家公司做测试).
_ZH_NO_SUBJECT = re.compile(
    rf"^(?={_ZH_WHEN}(?:一个人|自己|单独)?(?:住(?![院过])|搬|在|入职|加入|转学|就读|升职|吃素))"
)
# Chinese leaves the subject out of the clauses after the first, and a left-out subject is the last one said:
# 外婆今年八十五岁，住在 Sunnyvale is the grandmother's home; 受不了了，搬到了酒仙桥 and 北漂第三年，…，住在天通苑 the
# speaker's, as no one else (people.ZH_SOMEONE) has been the subject.
# What ends a clause: a comma, a sentence's end, or a space after a Chinese character (搬完家了累死 现在住番禺).
_ZH_BREAK = re.compile(r"((?:[，,。！？；!?;\n]|\.(?!\S)|(?<=[\u4e00-\u9fff])\s)\s*)")
_ZH_SENTENCE_END = re.compile(r"[。！？；!?;\n.]")
_ZH_SPEAKER = re.compile(r"^\s*(?:我|咱)(?!\s*的)")


def _zh_with_subject(text: str) -> str:
    """Chinese ``text`` with 我 before each clause that leaves out its subject when that subject is the speaker."""
    said, speaker = [], True  # whether the subject carried to the next clause is the speaker
    parts = _ZH_BREAK.split(text)
    for clause, end in zip(parts[::2], [*parts[1::2], ""], strict=True):
        if ZH_SOMEONE.match(clause):
            speaker = False
        elif _ZH_SPEAKER.match(clause):
            speaker = True
        elif speaker and _ZH_NO_SUBJECT.match(clause):
            clause = "我" + clause
        said.append(clause + end)
        if _ZH_SENTENCE_END.search(end):
            speaker = True  # a new sentence: a left-out subject at its start is the speaker
    return "".join(said)


def with_subject(text: str) -> str:
    """``text`` with "I" before each sentence that begins with a verb ("started at Spoke City today", "moved to
    Denver!"), and 我 before each Chinese clause that leaves out the speaker (现在住通州了 → 我现在住通州了; 受不了了，
    搬到了酒仙桥 → 受不了了，我搬到了酒仙桥): a chat leaves out the speaker, the slot patterns need one."""
    if not text.isascii():
        return _zh_with_subject(text) if _CJK_NAME.search(text) else text
    return _NO_SUBJECT_DOING.sub(" I'm ", _NO_SUBJECT.sub(" I ", text)).strip()


# A name ends with its capitalised words: "Lumen Health done", "Corvane Analytics on the 31st" → the company.
_PARTICLE = r"(?:of|and|&|de|di|da|del|della|du|des|la|le|von|van|der|den|y|e|the|for)"
_PROPER = re.compile(rf"(?-i:[A-Z0-9][\w'&.-]*(?:\s+(?:{_PARTICLE}\s+)?[A-Z0-9][\w'&.-]*)*)")


# A statement asked about or supposed, not made: "someone asked if I'm vegan", "wondering whether we live in the
# catchment", "if I moved to Leeds", 如果我搬到…, 问我是不是….
_ASKED_OR_SUPPOSED = re.compile(r"(?:\b(?:if|whether)\s+|如果|要是|假如|是不是)$", re.I)


def _asserted(text: str, found: SlotMatch) -> bool:
    """Whether ``text`` states ``found`` rather than asking or supposing it, or denying its value ("not vegan")."""
    if _ASKED_OR_SUPPOSED.search(text[max(0, found.start - 12) : found.start]):
        return False
    denied = re.compile(
        rf"\b(?:not|never)\s+(?:a\s+|an\s+)?{re.escape(found.value)}\b|不是{re.escape(found.value)}", re.I
    )
    return denied.search(text) is None


def _slot_match(name: str, match: re.Match[str]) -> SlotMatch | None:
    raw = match.group("v")
    proper = _PROPER.match(raw)
    if proper is not None and proper.end() < len(raw.rstrip()) and len(proper.group()) > 1:
        raw = proper.group()
    cut = _VALUE_END.search(raw)
    kept = raw[: cut.start()] if cut else raw
    kept = _ZH_VALUE_END.sub("", kept.rstrip(_VALUE_STRIP))
    value = " ".join(kept.split()).lower()
    if name != "living_with":  # a person lived with is said as said (我和男朋友: not "in a relationship")
        value = VALUE_ALIASES.get(value, value)
    if not value or _is_when(value) or (name == "residence" and _names_a_body(value)):
        return None
    qualifier = match.groupdict().get("k")
    slot = f"{name}:{_KINDS.get(qualifier.lower(), qualifier.lower())}" if qualifier else name
    return SlotMatch(slot, value, match.start(), match.start("v") + len(kept))


_BODIES = frozenset({"organisation", "school", "workplace"})


def _names_a_body(value: str) -> bool:
    """Whether a value names an organisation, a school or a workplace by its head word ("Ridgeway Academy", "Lumen
    Health", "the Leeds office"): no one's home, whatever verb led to it ("moving to Ridgeway Academy")."""
    return any(KINDS.get(word) in _BODIES for word in value.split())


def _is_when(value: str) -> bool:
    """Whether a slot's value is a time ("Choir has moved to Wednesday evenings" read as where the choir lives): no
    slot holds a weekday, a clock time or a date, whatever phrase led to it."""
    first = next(iter(find_values(value)), None)
    return first is not None and first.start == 0 and first.kind in WHEN_KINDS


DEFAULT_RULES = SlotRules()
SLOTS_KEY = "slots"  # where a memory keeps the slots its words state: metadata["slots"]


def slots_of(text: str, rules: SlotRules = DEFAULT_RULES) -> dict[str, str]:
    """``{slot: value}`` of every single-valued fact ``text`` states (the built-in slots by default)."""
    return rules.slots_of(text)


def read_slots(memory: Memory, rules: SlotRules = DEFAULT_RULES) -> dict[str, str]:
    """``{slot: value}`` of the facts ``memory``'s words state about its target: an observation, an insight, … is
    read with its target named in the third person as "I" (:func:`first_person`); a ``conversation`` memory is
    the user's own words, read as they are."""
    if memory.metadata.get(RESTATES):  # the assistant's "you live in Denver": the user's "I live in Denver"
        return rules.slots_of(as_said_by_user(memory.content))
    return rules.slots_of(memory.content, named(memory))


def stored_slots(memory: Memory, rules: SlotRules = DEFAULT_RULES) -> dict[str, str]:
    """The slots ``memory`` holds: as stored with it (written with its words, dropped when they are edited), else
    (not read yet) read from its words."""
    stored = memory.metadata.get(SLOTS_KEY)
    if isinstance(stored, dict):
        return {str(k): str(v) for k, v in stored.items()}
    return read_slots(memory, rules)


def named(memory: Memory) -> str | None:
    """Whom ``memory``'s words name in the third person: its target, unless it is a ``conversation`` memory (the
    user's own first-person words, left as they are)."""
    return None if memory.memory_type == "conversation" else memory.target


def with_slots(memory: Memory, rules: SlotRules = DEFAULT_RULES) -> Memory:
    """``memory`` carrying its slots in ``metadata["slots"]`` (``{}``: it states none), read from its words unless it
    has them already. A memory without the key has not been read yet (written before slots were stored, or by a
    path that does not read them): ``contra_repeat_op`` reads it when it is a candidate."""
    if isinstance(memory.metadata.get(SLOTS_KEY), dict):
        return memory
    return memory.model_copy(update={"metadata": {**memory.metadata, SLOTS_KEY: read_slots(memory, rules)}})


# Values that tell something that happened, not a state a later one replaces: "Marcus and I broke up" stays true when
# "I've been seeing someone" is said after it.
HAPPENED = frozenset({("relationship_status", "broke up")})


def superseded(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    """The slots of ``old`` the newer statement ``new`` replaces, in ``new``'s order: those both hold with different
    values (not what :data:`HAPPENED`), and those a state of ``new`` ends (:data:`ENDS`: "we broke up" ends the
    partner)."""
    replaced = [
        slot
        for slot, value in new.items()
        if slot in old
        and old[slot] != value
        and not (slot.partition("@")[0] in _PLACES and _narrows(old[slot], value))
        and (slot.partition("@")[0], old[slot]) not in HAPPENED
    ]
    return [*replaced, *(slot for slot in ended_slots(new) if slot in old and slot not in replaced)]


_VALUE_WORD = re.compile(r"[a-z0-9'’-]+")
# A place or employer named more narrowly (or with its article) is the same one ("the Crown" / "Crown", "Lumen" / "Lumen
# Health"); a title is not ("senior analyst")
_PLACES = frozenset({"residence", "employer"})


def _narrows(old: str, new: str) -> bool:
    """Whether one place says the other more narrowly, so both are one ("berkeley" / "north berkeley", 朝阳 / 朝阳双井):
    every word of one is in the other (Chinese: one is inside the other)."""
    if _CJK_NAME.search(old) or _CJK_NAME.search(new):
        return old in new or new in old
    a, b = set(_VALUE_WORD.findall(old)) - _ARTICLES, set(_VALUE_WORD.findall(new)) - _ARTICLES
    return bool(a and b) and (a <= b or b <= a)


_ARTICLES = frozenset({"the", "a", "an"})
_NAMES_SPEAKER = re.compile(r"\b(?:i|me|my|myself)\b", re.I)


def ended_slots(new: Mapping[str, str]) -> list[str]:
    """The slots the states in ``new`` end (:data:`ENDS`), qualified as theirs are (``employment@弟`` ends
    ``employer@弟``)."""
    found: list[str] = []
    for slot, value in new.items():
        name, at, who = slot.partition("@")
        table = ENDS.get(name, {})
        for ended in table.get(value, table.get("*", ())):
            found.append(f"{ended}{at}{who}")
    return found
