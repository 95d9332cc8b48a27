"""What a name's own words say it is, offline (`guess_type`): the head words of organizations, places, events and
technologies, first names and the cues before a person's name, known places, demonyms and titles, months and
days. English only; a name none of these type is a CONCEPT."""

from __future__ import annotations

ROMAN = {"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"}


CONNECTORS = {"of", "de", "von", "van", "la", "del", "der", "da", "di", "du", "le", "y"}


INNER_THE = {"the"}


MONTHS = {
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
}


DAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}


ORG_WORDS = {
    "agency",
    "administration",
    "company",
    "corp",
    "corp.",
    "corporation",
    "inc",
    "inc.",
    "ltd",
    "laboratory",
    "laboratories",
    "institute",
    "university",
    "organisation",
    "organization",
    "group",
    "alliance",
    "aerospace",
    "aviation",
    "nasa",
    "committee",
    "bureau",
    "council",
    "ministry",
    "department",
    "foundation",
    "association",
    "society",
    "bank",
    "party",
    "army",
    "navy",
    "force",
    "office",
    "board",
    "academy",
    "college",
    "school",
    "press",
    "media",
    "arianespace",
    "technologies",
    "systems",
    "industries",
    "enterprises",
    "labs",
    "studios",
    "services",
}


LOCATION_WORDS = {
    "crater",
    "sea",
    "ocean",
    "mare",
    "island",
    "islands",
    "base",
    "site",
    "cosmodrome",
    "zone",
    "complex",
    "centre",
    "center",
    "city",
    "county",
    "state",
    "river",
    "lake",
    "mount",
    "mountain",
    "mountains",
    "valley",
    "bay",
    "gulf",
    "coast",
    "desert",
    "province",
    "region",
    "street",
    "road",
    "avenue",
    "park",
    "facility",
    "station",
    "pole",
    "orbit",
    "belt",
    "point",
    "cape",
    "port",
    "harbor",
    "harbour",
    "kingdom",
    "republic",
    "empire",
    "village",
    "town",
    "castle",
    "hall",
    "house",
    "palace",
    "square",
    "bridge",
    "forest",
    "hill",
    "hills",
}


EVENT_WORDS = {
    "mission",
    "missions",
    "program",
    "programme",
    "race",
    "war",
    "battle",
    "flight",
    "expedition",
    "conference",
    "summit",
    "olympics",
    "games",
    "festival",
    "revolution",
    "treaty",
    "act",
    "launch",
    "landing",
    "test",
    "tests",
    "campaign",
    "crisis",
    "election",
    "award",
    "prize",
    "demo",
}


TECH_WORDS = {
    "engine",
    "engines",
    "system",
    "telescope",
    "rover",
    "lander",
    "rocket",
    "spacecraft",
    "satellite",
    "helicopter",
    "vehicle",
    "module",
    "arm",
    "algorithm",
    "protocol",
    "model",
    "capsule",
    "booster",
    "constellation",
    "observatory",
    "probe",
    "generator",
    "mirror",
}


# Ranks and titles written before a person's name: both a cue that a person follows and a title.
RANKS = {
    "astronaut",
    "astronauts",
    "captain",
    "ceo",
    "colonel",
    "commander",
    "cosmonaut",
    "dr",
    "general",
    "king",
    "lady",
    "lord",
    "mr",
    "mrs",
    "ms",
    "pilot",
    "president",
    "prince",
    "princess",
    "professor",
    "queen",
}
PERSON_CUES = RANKS | {
    "administrator",
    "astronomer",
    "aunt",
    "brother",
    "chief",
    "daughter",
    "designer",
    "director",
    "engineer",
    "father",
    "founder",
    "husband",
    "investigator",
    "mother",
    "said",
    "scientist",
    "sister",
    "son",
    "told",
    "uncle",
    "wife",
}


FIRST_NAMES = set(
    """
aaron adam alan albert alexander alexei alice amelia andrew angela ann anna anne anthony arthur barbara ben
benjamin bernard betty bill bob brian bruce buzz carl carol caroline catherine charles charlotte chris
christina christine christopher claire daniel david deborah dennis diana donald doris dorothy doug douglas
dwight edward edwin elizabeth ellen elon emily emma eric ernest eugene frank fred frederick gene george
gerald grace gwynne harold harriet harry helen henry howard hugh isaac jack james jane janet jean jeff
jennifer jeremy jessica jim joan john jonathan joseph joyce judith julia julie karen katherine kathleen
kenneth laura lawrence linda lisa louis louise lucy margaret maria marie mark martha mary matthew michael
neil nicholas oliver oscar patricia patrick paul peter philip rachel ralph reid richard robert roger ronald
rose ruth sally samuel sarah sergei simon stephen steven susan thomas timothy tom valentina victor virginia
wally walter wernher william yuri ouyang emma fanny elinor marianne edmund fitzwilliam jay mikhail ivan
dmitri natasha pierre andrei nikolai leo lev fyodor anna sherlock watson heathcliff catherine jo meg beth
amy laurie tess angel alec huck tom becky jim ahab ishmael queequeg starbuck hester arthur roger
""".split()
)


PLACES = set(
    """
moon earth mars venus mercury jupiter saturn uranus neptune pluto sun africa asia europe antarctica america
australia alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii
idaho illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota
mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania tennessee texas utah vermont
virginia washington wisconsin wyoming china india japan russia france germany italy spain britain england
scotland ireland wales canada mexico brazil argentina chile peru egypt israel iran iraq turkey greece poland
ukraine sweden norway finland denmark netherlands belgium switzerland austria portugal korea vietnam
thailand indonesia pakistan kazakhstan mongolia nigeria kenya ethiopia london paris berlin moscow beijing
tokyo rome madrid houston pasadena huntsville baltimore darmstadt kourou hawthorne kent hainan shanghai
""".split()
) | {
    "french guiana",
    "united states",
    "united kingdom",
    "soviet union",
    "new york",
    "new zealand",
    "south africa",
    "north korea",
    "south korea",
    "hong kong",
    "los angeles",
    "san francisco",
}


DEMONYMS = {
    "american",
    "russian",
    "chinese",
    "european",
    "soviet",
    "canadian",
    "indian",
    "japanese",
    "french",
    "german",
    "british",
    "italian",
    "spanish",
    "english",
    "korean",
    "israeli",
    "australian",
    "dutch",
    "swedish",
    "norwegian",
    "mexican",
    "brazilian",
    "african",
    "asian",
    "greek",
    "roman",
}


TITLES = RANKS | {
    "chairman",
    "doctor",
    "emperor",
    "governor",
    "pope",
    "prof",
    "saint",
    "senator",
    "sir",
    "st",
}


def guess_type(name: str, previous_word: str = "") -> str:
    words = name.split()
    lowered = [w.lower().strip(".,") for w in words]
    heads = {lowered[0], lowered[-1]}  # English names carry their kind at either end ("Bank of X", "X Bank")
    if heads & ORG_WORDS or (len(words) == 1 and name.isalpha() and name.isupper() and 2 <= len(name) <= 6):
        return "ORGANIZATION"
    if lowered[-1] in EVENT_WORDS or lowered[0] in {"operation", "battle", "treaty", "expedition"}:
        return "EVENT"
    if heads & LOCATION_WORDS or " ".join(lowered) in PLACES:
        return "LOCATION"
    if lowered[-1] in TECH_WORDS:
        return "TECHNOLOGY"
    if any(ch.isdigit() for ch in name) or words[-1] in ROMAN:
        return "PRODUCT"
    alphabetic = all(
        w[:1].isupper() and w.replace("'", "").replace("’", "").replace("-", "").replace(".", "").isalpha()
        for w in words
        if w.lower() not in CONNECTORS
    )
    if alphabetic and 2 <= len(words) <= 4 and (lowered[0] in FIRST_NAMES or previous_word in PERSON_CUES):
        return "PERSON"
    if alphabetic and len(words) == 1 and previous_word in PERSON_CUES:
        return "PERSON"
    return "CONCEPT"
