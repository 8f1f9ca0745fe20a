"""Occupations by their head nouns: a job title is open-ended ("junior designer", "data engineering lead") but ends
in one of a closed class of words for what a person does for a living.

One list, read by the slot table (``job_title``: "I'm a …" counts only when it ends in one) and by the typed values
(:mod:`flowmem.scoring.values`: a title said of someone — "as a junior designer", "now a senior engineer",
"badge: Senior Designer" — is a value of kind ``job``, so a newer one replaces it).
"""

from __future__ import annotations

OCCUPATION_HEADS = (
    "designer|engineer|developer|programmer|nurse|doctor|physician|surgeon|dentist|teacher|professor|lecturer|"
    "lawyer|attorney|accountant|architect|manager|director|consultant|analyst|scientist|researcher|journalist|"
    "writer|editor|chef|cook|waiter|waitress|pharmacist|therapist|paramedic|firefighter|officer|electrician|"
    "plumber|mechanic|carpenter|pilot|driver|cashier|barista|librarian|photographer|artist|musician|intern|"
    "assistant|technician|salesperson|recruiter|veterinarian|vet|supervisor|coordinator|administrator|clerk|"
    "receptionist|specialist|associate|executive|strategist|planner|tutor|instructor|coach|counsellor|counselor|"
    "paralegal|surveyor|economist|statistician|physiotherapist|midwife|caregiver|carer|cleaner|butcher|baker|"
    "nanny|childminder|babysitter|housekeeper|guard|courier|farmer|builder|labourer|laborer|police|"
    "soldier|hairdresser|barber|optician|dietitian|nutritionist|translator|interpreter|rep|representative|agent|"
    "operator|banker|trader|broker|auditor|inspector|bartender|attendant|tailor|welder|lifeguard|actor|actress|"
    "stylist|biologist|founder|freelancer|contractor"
)
# Up to two words before the head qualify it ("junior", "data engineering"); never a determiner or a possessive.
_NOT_QUALIFIER = r"(?!(?:the|my|his|her|our|their|your|a|an|new|now|this|that)\b)"
EN_OCCUPATION = rf"(?:{_NOT_QUALIFIER}[a-z-]+\s+){{0,2}}(?:{OCCUPATION_HEADS})s?\b"

# The words of a working life, beside the occupations: what a person's retiring or leaving their job ends.
WORK_WORDS = (
    "work", "works", "working", "job", "career", "employed", "employer", "company", "office", "shift",
    # an occupation said by what one does ("still teaching part-time", "left nursing")
    "teaching", "nursing", "lecturing", "tutoring", "coaching", "consulting", "freelancing", "practising", "practicing",
)  # fmt: skip
ZH_WORK_WORDS = ("工作", "上班", "打工", "兼职", "公司", "单位", "岗位", "职位")
ZH_OCCUPATION_WORDS = [
    "设计师",
    "工程师",
    "程序员",
    "护士",
    "医生",
    "老师",
    "教师",
    "教授",
    "律师",
    "会计",
    "建筑师",
    "经理",
    "总监",
    "主管",
    "顾问",
    "分析师",
    "记者",
    "编辑",
    "厨师",
    "服务员",
    "药剂师",
    "司机",
    "销售",
    "助理",
    "实习生",
    "研究员",
    "科学家",
    "摄影师",
    "兽医",
    # what a household or a shop hires, and the trades of town and country
    "保姆",
    "月嫂",
    "育儿嫂",
    "护工",
    "钟点工",
    "保洁",
    "客服",
    "保安",
    "快递员",
    "外卖员",
    "收银员",
    "店员",
    "导游",
    "警察",
    "公务员",
    "工人",
    "农民",
    "翻译",
    "理发师",
    "营养师",
]
ZH_OCCUPATION = rf"[^，。！？；,.!?;\s]{{0,6}}?(?:{'|'.join(ZH_OCCUPATION_WORDS)})"
