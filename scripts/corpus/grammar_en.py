"""A small grammar of everyday English, so that the short sentences a person types
("the red car is fast", "my sister lives in a small town") are well covered.

Adjective-noun phrases are deliberately frequent: Spanish puts most adjectives after the
noun ("the red car" -> "el coche rojo"), and a model only learns that reordering from many
examples of it.

The vocabulary and the templates were checked against apertium-eng-spa: words and
constructions it renders wrongly are left out (see the notes by each list), because a
systematic error here would be learned as if it were Spanish.

Output depends only on the seed: it uses random.Random's random() and randrange(), whose
sequences are stable across Python 3 releases, and never iterates over a set.
"""

import random

# Adjectives by meaning; each noun class below says which it takes, so "the hungry table"
# and "the young bench" are never made. Left out: "kind" ("that kind father" reads as
# "that kind of"), "pretty" (-> "bastante"), "little" (-> "poco").
COLOUR = "red blue green yellow black white brown pink purple grey".split()
SIZE = "big small large".split()
SHAPE = "long short wide narrow".split()
LOOKS = "beautiful ugly clean dirty".split()
PRICE = "cheap expensive".split()
NEW_OLD = "new old".split()
YOUNG_OLD = "young old".split()
MOOD = "happy sad tired hungry angry friendly busy rich poor strong famous".split()
BEAST = "happy hungry tired angry friendly strong fast slow dangerous".split()
PLACE_ADJS = "modern famous quiet noisy dark empty dangerous strange".split()
MACHINE = "modern fast slow noisy quiet".split()
TASTE = "fresh sweet delicious".split()
TEMPERATURE = "hot cold".split()
READING = "interesting boring famous strange long short".split()

CLASS_ADJS = {
    "person": MOOD + YOUNG_OLD + ["tall"],
    "kin": MOOD + YOUNG_OLD + ["tall"],
    "animal": SIZE + YOUNG_OLD + BEAST,
    "vehicle": COLOUR + SIZE + NEW_OLD + LOOKS + PRICE + MACHINE,
    "place": SIZE + NEW_OLD + LOOKS + PLACE_ADJS,
    "furniture": COLOUR + SIZE + NEW_OLD + LOOKS + PRICE + ["modern", "heavy"],
    "thing": SIZE + NEW_OLD + LOOKS + PRICE + ["strange"],
    "garment": COLOUR + SIZE + NEW_OLD + LOOKS + PRICE,
    "readable": NEW_OLD + PRICE + READING,
    "food": SIZE + TASTE,
}

# Extra adjectives a noun takes beyond its class: c = colours, s = long/short/wide/narrow,
# t = tall, h = heavy, e = empty/full, w = hot/cold.
FLAG_ADJS = {"c": COLOUR, "s": SHAPE, "t": ["tall"], "h": ["heavy"], "e": ["empty", "full"],
             "w": TEMPERATURE}

# singular plural class flags [f = female, for agreement in "X is my Y"]. Left out because
# apertium renders them wrongly or not at all: driver, station, farm, market (-> "lonja"),
# key (-> "tono"), stone (-> "hueso"), letter (-> "letra"), coat, bottle, plane (-> "plano"),
# baby (-> "criatura"), pencil and student (plural lost), envelope, wall, ring (-> "red"),
# camera (wrong gender), drum, belt, sweater, balloon.
_NOUNS = """
man men person -
woman women person f
boy boys person -
girl girls person f
child children person -
friend friends person -
teacher teachers person -
doctor doctors person -
farmer farmers person -
king kings person -
queen queens person f
neighbor neighbors person -
nurse nurses person -
waiter waiters person -
singer singers person -
painter painters person -
writer writers person -
soldier soldiers person -
pilot pilots person -
lawyer lawyers person -
actor actors person -
actress actresses person f
dancer dancers person -
guest guests person -
brother brothers kin -
sister sisters kin f
mother mothers kin f
father fathers kin -
uncle uncles kin -
aunt aunts kin f
cousin cousins kin -
grandmother grandmothers kin f
grandfather grandfathers kin -
son sons kin -
daughter daughters kin f
wife wives kin f
husband husbands kin -
nephew nephews kin -
niece nieces kin f
dog dogs animal c
cat cats animal c
horse horses animal c
bird birds animal c
cow cows animal c
mouse mice animal c
rabbit rabbits animal c
sheep sheep animal c
pig pigs animal c
duck ducks animal c
chicken chickens animal c
lion lions animal -
bear bears animal c
fish fish animal c
goat goats animal c
wolf wolves animal c
fox foxes animal c
tiger tigers animal -
elephant elephants animal -
monkey monkeys animal c
snake snakes animal cs
frog frogs animal c
car cars vehicle -
bus buses vehicle s
bicycle bicycles vehicle -
train trains vehicle s
boat boats vehicle -
truck trucks vehicle -
ship ships vehicle -
taxi taxis vehicle -
motorcycle motorcycles vehicle -
van vans vehicle -
house houses place ct
town towns place -
city cities place -
village villages place -
school schools place c
park parks place -
garden gardens place -
room rooms place c
kitchen kitchens place c
shop shops place -
street streets place s
hotel hotels place t
hospital hospitals place -
office offices place -
library libraries place -
church churches place ct
restaurant restaurants place -
museum museums place -
castle castles place t
forest forests place -
beach beaches place s
island islands place -
country countries place -
building buildings place ct
bridge bridges place s
road roads place s
river rivers place s
lake lakes place -
mountain mountains place t
airport airports place -
bank banks place -
cinema cinemas place -
theater theaters place -
zoo zoos place -
bakery bakeries place -
classroom classrooms place c
bathroom bathrooms place c
bedroom bedrooms place c
field fields place -
valley valleys place s
hill hills place -
square squares place -
palace palaces place ct
prison prisons place -
factory factories place -
garage garages place c
tower towers place ct
table tables furniture s
chair chairs furniture -
bed beds furniture -
sofa sofas furniture s
desk desks furniture -
shelf shelves furniture s
cupboard cupboards furniture -
armchair armchairs furniture -
bench benches furniture s
door doors thing ch
window windows thing -
box boxes thing che
bag bags thing che
cup cups thing ce
glass glasses thing e
plate plates thing ce
knife knives thing s
pen pens thing c
phone phones thing c
computer computers thing ch
clock clocks thing c
lamp lamps thing c
picture pictures thing -
ball balls thing ch
toy toys thing c
umbrella umbrellas thing c
flower flowers thing ct
tree trees thing t
mirror mirrors thing -
towel towels thing c
blanket blankets thing ch
pillow pillows thing c
candle candles thing cs
basket baskets thing che
bucket buckets thing che
wallet wallets thing ce
necklace necklaces thing s
radio radios thing c
television televisions thing h
guitar guitars thing c
piano pianos thing ch
kite kites thing c
doll dolls thing -
spoon spoons thing -
fork forks thing -
bowl bowls thing ce
pot pots thing che
pan pans thing h
ticket tickets thing c
gift gifts thing -
rope ropes thing cs
bell bells thing h
brush brushes thing -
painting paintings thing -
fence fences thing cs
hat hats garment -
shirt shirts garment s
dress dresses garment s
shoe shoes garment -
jacket jackets garment s
skirt skirts garment s
sock socks garment s
glove gloves garment -
scarf scarves garment s
boot boots garment -
book books readable ch
newspaper newspapers readable -
magazine magazines readable -
story stories readable -
map maps readable -
notebook notebooks readable c
photo photos readable -
novel novels readable h
poem poems readable -
postcard postcards readable c
diary diaries readable c
dictionary dictionaries readable ch
apple apples food c
cake cakes food w
egg eggs food cw
sandwich sandwiches food w
orange oranges food -
banana bananas food -
tomato tomatoes food c
potato potatoes food w
cookie cookies food -
pizza pizzas food w
lemon lemons food -
pear pears food c
carrot carrots food -
onion onions food c
melon melons food -
strawberry strawberries food -
cherry cherries food -
peach peaches food -
pie pies food w
sausage sausages food w
""".strip()

# Drinks take no article and a temperature or freshness adjective ("hot coffee").
DRINKS = "water milk coffee tea juice".split()
DRINK_ADJS = "hot cold fresh".split()

# Transitive verbs: base, third person singular, past, and what the object may be (noun
# classes or single nouns). "like" with a noun subject ("a la chica le gusta") and "read" with
# a plural one ("mis amigos leídos") come out wrong, so those two take pronoun subjects;
# "cook" came out as "cocinado lo", "drink" after a singular noun as a noun ("un jugo de
# bebidas"), "work" as "obrar", "play" as "tocar".
_TRANSITIVE = """
see sees saw person,kin,animal,vehicle,place,thing,furniture,garment,food,readable
want wants wanted thing,vehicle,animal,food,readable,furniture,garment
have has had thing,vehicle,animal,readable,furniture,garment
buy buys bought thing,vehicle,food,readable,furniture,garment,house,garage,shop,restaurant,hotel
sell sells sold thing,vehicle,readable,furniture,garment,house,garage,shop,restaurant,hotel
find finds found thing,readable,animal,garment
need needs needed thing,vehicle,readable,furniture,garment
like likes liked animal,vehicle,place,thing,furniture,garment,food,readable
love loves loved kin,animal,place,vehicle
read reads read book,newspaper,magazine,story,map,poem,novel,postcard,diary,dictionary
write writes wrote book,story,poem,novel,postcard
eat eats ate food
open opens opened door,window,box,bag,book,notebook,wallet,cupboard,diary,novel,magazine,umbrella,basket
close closes closed door,window,box,bag,book,notebook,wallet,cupboard,diary,novel,magazine,umbrella
clean cleans cleaned thing,furniture,vehicle,house,room,kitchen,bathroom,bedroom,classroom,garage
paint paints painted house,room,kitchen,door,window,fence,car,bicycle,boat,table,chair,bench,picture,box
draw draws drew person,kin,animal,vehicle,place,thing,food
carry carries carried thing,readable,food
wash washes washed car,bus,bicycle,truck,van,taxi,dog,cat,horse,garment,towel,blanket,cup,glass,plate,spoon,fork,bowl,pot,pan,knife,window
watch watches watched person,animal,train,boat,ship,television
visit visits visited museum,zoo,castle,palace,city,town,village,park,church,factory,hospital,school,island,country,kin
call calls called person,kin,dog,cat
take takes took thing,readable,food,vehicle,garment
""".strip()
PRONOUN_ONLY_VERBS = ("like", "read")
NEGATABLE_VERBS = ("have", "want", "need")
ANIMAL_SUBJECT_VERBS = ("see", "want", "eat", "find", "watch")
# Habits and single events; "you love a red tower every day" is not English.
TIMED_VERBS = ("buy", "sell", "eat", "read", "write", "clean", "paint", "wash", "visit",
               "call", "watch", "take", "carry", "draw", "open", "close", "find", "see")

# Intransitive verbs with their preposition and the nouns it may name. With a singular noun
# subject in the present tense apertium reads most of these as plural nouns ("the girl
# lives" -> "las vidas de chica"), and "the girl lived" comes out as "la chica vivida", so
# they take pronouns; "live" and "swim" work with plural nouns ("los hombres viven").
# "near" and "next to" are left out ("cerca la", "luego a").
_INTRANSITIVE = """
live lives lived in house,town,city,village,country,palace,castle,hotel,tower
sleep sleeps slept in bedroom,room,house,hotel,garden
sleep sleeps slept on bed,sofa,bench,armchair
walk walks walked to school,park,shop,church,beach,river,lake,village,town,museum,library,hospital,office,restaurant,hotel,bridge,zoo,bakery,cinema,bank
run runs ran to school,park,shop,church,beach,river,lake,village,house,bridge,car,door,garden
wait waits waited in room,kitchen,park,garden,office,car,hotel,airport,classroom,street,square
swim swims swam in lake,river
""".strip()
PLURAL_SUBJECT_VERBS = ("live", "swim")

# Prepositions for "there is a ... <prep> the ..." and the nouns each suits.
LOCATIONS = [
    ("in", "box,bag,basket,bucket,room,kitchen,garden,park,house,car,bedroom,classroom,"
           "bathroom,street,square,field,tree,river,lake,garage,shop,cupboard"),
    ("on", "table,bed,chair,sofa,desk,shelf,bench,armchair,plate,bus,train,boat,ship"),
    ("under", "table,bed,chair,sofa,desk,bench,tree,bridge,car,armchair,umbrella"),
    ("behind", "house,door,tree,church,school,car,bus,sofa,castle,garage,hotel"),
    ("in front of", "house,door,school,church,hotel,museum,castle,bank,cinema,library"),
]
LOCATED = ("thing", "animal", "garment", "food", "readable")

# Adjectives apertium renders wrongly after "is": "fast" -> "rápidamente", "long" -> "mucho
# tiempo", "dirty" -> "cochinamente", "hot"/"cold" -> "pasa frío", "interesting" ->
# "interesando".
NOT_PREDICATIVE = ("fast", "long", "dirty", "hot", "cold", "interesting", "boring")
ANTONYMS = [("old", "new"), ("old", "young"), ("big", "small"), ("large", "small"),
            ("happy", "sad"), ("clean", "dirty"), ("cheap", "expensive"), ("quiet", "noisy"),
            ("fast", "slow"), ("rich", "poor"), ("long", "short"), ("tall", "short"),
            ("beautiful", "ugly"), ("wide", "narrow"), ("empty", "full"),
            ("interesting", "boring"), ("hot", "cold")]

PRONOUNS = [("I", False), ("you", False), ("he", True), ("she", True), ("we", False),
            ("they", False)]
QUESTION_PRONOUNS = [("you", False), ("he", True), ("she", True), ("they", False)]
POSSESSIVES = "my your his her our their".split()
SINGULAR_DETS = ["the"] * 4 + POSSESSIVES + ["this", "that"]
# After a verb "that" is read as a conjunction ("found that horse" -> "encontraste que").
OBJECT_DETS = ["the"] * 4 + POSSESSIVES + ["this"]
PLURAL_DETS = ["the"] * 3 + POSSESSIVES + ["these", "those"]
NUMBERS = "two three four five six".split()
TIMES_PAST = ["yesterday", "this morning", "last night"]  # "last week" -> "última semana"
TIMES_PRESENT = ["every day", "every morning", "every evening", "on Sundays"]


def _parse_nouns():
    nouns = []
    for line in _NOUNS.splitlines():
        sg, pl, cls, flags = line.split()
        adjs = list(CLASS_ADJS[cls])
        for flag in flags:
            for a in FLAG_ADJS.get(flag, []):
                if a not in adjs:
                    adjs.append(a)
        nouns.append({"sg": sg, "pl": pl, "cls": cls, "adjs": adjs, "female": "f" in flags})
    return nouns


NOUNS = _parse_nouns()
NOUN_BY_SG = {n["sg"]: n for n in NOUNS}


def _parse_verbs(text, fields):
    verbs = []
    for line in text.splitlines():
        parts = line.split()
        verbs.append(tuple(parts[:fields]) + (parts[fields].split(","),))
    return verbs


TRANSITIVE = _parse_verbs(_TRANSITIVE, 3)
INTRANSITIVE = _parse_verbs(_INTRANSITIVE, 4)

