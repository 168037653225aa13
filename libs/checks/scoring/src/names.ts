/**
 * Common given names and surnames (English-speaking, European, Latin American, South and East
 * Asian, African), enough to recognise person-shaped local parts and the slips people make typing
 * them. Not a census: a name missing here only loses a small bonus, never earns a penalty.
 */
const words = (text: string) => new Set(text.split(/\s+/).filter(Boolean));

export const FIRST_NAMES = words(`
  aaron adam adrian ahmed alan albert alex alexander alice alicia amanda amy ana andrea andrew angela anna anne anthony antonio
  ashley barbara ben benjamin beth betty bill bob brian bruce carl carla carlos carol caroline catherine charles charlie chris
  christian christina christine christopher claire claudia colin craig daniel david deborah dennis diana diane donald donna
  dorothy douglas edward elena elizabeth ellen emily emma eric erik eva frank fred gabriel gary george gina grace greg gregory
  hannah harry heather helen henry hugo ian isabel jack jacob james jamie jane janet jason javier jean jeff jennifer jeremy
  jessica jim joan joe john jonathan jorge jose joseph joshua juan julia julie justin karen kate katherine kathleen keith kelly
  kenneth kevin kim laura lauren linda lisa louis lucas lucy luis luke marco margaret maria marie mark martin mary matthew max
  megan michael michelle mike monica nancy natalie nathan nicholas nicole olivia oscar pablo pamela patricia patrick paul paula
  peter philip rachel raymond rebecca richard robert roger ronald rose ruth ryan sam samuel sandra sara sarah scott sean sharon
  simon sophie stephanie stephen steve steven susan thomas tim timothy tom tony victoria vincent walter william zoe
  abigail amelia andre arthur ava beatriz bruno camila carmen chloe connor dylan ethan evelyn felix finn florian francesca
  francisco gabriela giulia giuseppe hans harper ines isabella jakob jasmine jonas julian katarina klaus leon liam lorenzo
  lukas magnus manuel marta matteo mateo mia miguel nina noah oliver pedro pierre rafael sebastian sofia sophia stefan sven
  teresa valentina victor yasmin
  agnieszka aleksandra andrzej anja astrid bjorn dmitri dmitry elena ewa hanna ingrid irina ivan jan jens karl kasia katja lars
  maja marek mikhail natasha nikolai olga piotr sergei sergey sigrid tatiana tomasz ulrich vladimir wojciech zofia
  aditya amit ananya anil arjun deepak divya ganesh kavya krishna lakshmi manish meera neha nikhil pooja priya rahul raj rajesh
  ravi rohan sanjay sunita suresh vijay vikram
  aiko akira haruto hiroshi kenji naoki sakura takeshi yuki yumi yusuke
  ali amina aisha chidi chinedu emeka fatima hassan ibrahim kwame kofi mohamed mohammed musa ngozi nia obinna oluwaseun omar
  tunde yusuf zainab
  aoife ciara declan eoin niamh padraig saoirse siobhan
`);

export const SURNAMES = words(`
  smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez gonzalez wilson anderson thomas
  taylor moore jackson martin lee perez thompson white harris sanchez clark ramirez lewis robinson walker young allen king
  wright scott torres nguyen hill flores green adams nelson baker hall rivera campbell mitchell carter roberts gomez phillips
  evans turner diaz parker cruz edwards collins reyes stewart morris morales murphy cook rogers gutierrez ortiz morgan cooper
  peterson bailey reed kelly howard ramos kim cox ward richardson watson brooks chavez wood james bennett gray mendoza ruiz
  hughes price alvarez castillo sanders patel myers long ross foster jimenez powell jenkins perry russell sullivan bell coleman
  butler henderson barnes gonzales fisher vasquez simmons romero jordan patterson alexander hamilton graham reynolds griffin
  wallace moreno west cole hayes bryant herrera gibson ellis tran medina aguilar stevens murray ford castro marshall owens
  harrison fernandez mcdonald woods washington kennedy wells vargas henry chen freeman webb tucker guzman burns crawford olson
  simpson porter hunter gordon mendez silva shaw snyder mason dixon munoz hunt hicks holmes palmer wagner black robertson
  boyd rose stone salazar fox warren mills meyer rice schmidt garza daniels ferguson nichols stephens soto weaver ryan gardner
  payne grant dunn kelley spencer hawkins arnold pierce vazquez hansen peters santos hart bradley knight elliott cunningham
  duncan armstrong hudson carroll lane riley andrews alvarado ray delgado berry perkins hoffman johnston matthews pena richards
  muller mueller schmidt schneider fischer weber becker schulz hoffmann koch richter klein wolf schroeder neumann braun
  zimmermann kruger hartmann lange werner krause lehmann kohler
  rossi russo ferrari esposito bianchi romano colombo ricci marino greco bruno gallo conti costa giordano mancini rizzo lombardi
  moretti martin bernard dubois durand leroy moreau simon laurent lefebvre michel fontaine rousseau vincent mercier
  dejong jansen devries vandenberg bakker visser smit meijer mulder
  nowak kowalski wisniewski wojcik kowalczyk kaminski lewandowski zielinski szymanski dabrowski kozlowski jankowski
  ivanov petrov smirnov popov sokolov kuznetsov volkov novak horvat
  johansson andersson karlsson nilsson eriksson larsson olsson persson svensson lindqvist lindberg nielsen jensen hansen
  pedersen andersen christensen larsen sorensen berg haugen johansen virtanen korhonen
  murphy kelly obrien byrne ryan walsh oconnor mccarthy doyle gallagher
  sharma singh kumar gupta patel shah mehta reddy rao iyer nair joshi desai chopra malhotra kapoor agarwal das bose
  wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo lin he gao luo lai
  sato suzuki takahashi tanaka watanabe ito yamamoto nakamura kobayashi kato yoshida yamada sasaki yamaguchi matsumoto
  park choi jung kang cho yoon jang lim
  nguyen tran le pham hoang phan vu dang bui do ngo
  okafor okeke adeyemi okonkwo adebayo mensah boateng owusu mwangi kamau otieno ahmed hassan ali ibrahim mohamed abdullah
  silva santos oliveira souza pereira costa ferreira rodrigues almeida carvalho gomes ribeiro
`);

/** A letter pair found in no name above: keyboard noise and generated strings are full of them. */
const NAME_BIGRAMS = new Set(
  [...FIRST_NAMES, ...SURNAMES].flatMap((name) => [...name.slice(1)].map((letter, at) => name[at] + letter)),
);

/** Letter pairs of the runs of letters in `local` that no common name has, and how many pairs there are. */
export function unusualLetterPairs(local: string): { unusual: number; pairs: number } {
  let unusual = 0;
  let pairs = 0;
  for (const run of local.match(/[a-z]{2,}/g) ?? []) {
    for (let at = 1; at < run.length; at++) {
      pairs++;
      if (!NAME_BIGRAMS.has(run[at - 1] + run[at])) unusual++;
    }
  }
  return { unusual, pairs };
}

/** How often each letter pair (^ start, $ end) occurs in the names above, and each letter leads one. */
const PAIR_COUNTS = new Map<string, number>();
const LEAD_COUNTS = new Map<string, number>();
for (const name of [...FIRST_NAMES, ...SURNAMES]) {
  const marked = `^${name}$`;
  for (let at = 1; at < marked.length; at++) {
    const pair = marked.slice(at - 1, at + 1);
    PAIR_COUNTS.set(pair, (PAIR_COUNTS.get(pair) ?? 0) + 1);
    LEAD_COUNTS.set(marked[at - 1], (LEAD_COUNTS.get(marked[at - 1]) ?? 0) + 1);
  }
}
/** What may follow a letter: 26 letters and the end (add-one smoothing). */
const FOLLOWERS = 27;

/**
 * How much a local part is spelt like names: the mean log-probability of its letter pairs (with the
 * start and end of each run of letters) under the letter pairs of the names above. Of two spellings one
 * slip apart, the likelier is what was meant (`zsofia`, not `zsofai`, whose `ai` rarely ends a name),
 * names the lists lack included.
 */
export function nameLikeness(local: string): number {
  let sum = 0;
  let pairs = 0;
  for (const run of local.match(/[a-z]+/g) ?? []) {
    const marked = `^${run}$`;
    for (let at = 1; at < marked.length; at++) {
      const count = PAIR_COUNTS.get(marked.slice(at - 1, at + 1)) ?? 0;
      sum += Math.log((count + 1) / ((LEAD_COUNTS.get(marked[at - 1]) ?? 0) + FOLLOWERS));
      pairs++;
    }
  }
  return pairs === 0 ? -Infinity : sum / pairs;
}

/** Names beyond the lists: those learned from addresses known to exist (domain-model.ts `names`). */
export type Learned = ReadonlySet<string>;
const NONE: Learned = new Set();

const isName = (word: string, learned: Learned = NONE) =>
  FIRST_NAMES.has(word) || SURNAMES.has(word) || learned.has(word);

/**
 * The local part reads as names in one of the patterns: names or an initial around a separator, or
 * a name with an initial or a name before or after it. With `shortest`, names shorter than that do
 * not count (a swap in `mail` makes m + Ali, which says nothing). A learned name may be either.
 */
export function readsAsNames(local: string, shortest = 1, learned: Learned = NONE): boolean {
  const name = (word: string) => word.length >= shortest && isName(word, learned);
  const parts = local.split(/[._-]/);
  if (parts.length === 2) {
    const [a, b] = parts;
    return (name(a) || a.length === 1) && (name(b) || b.length === 1) && a.length + b.length > 2;
  }
  if (parts.length !== 1 || !/^[a-z]{3,}$/.test(local)) return false;
  if (name(local) || name(local.slice(1)) || name(local.slice(0, -1))) return true;
  for (let cut = 2; cut < local.length - 1; cut++) {
    const first = local.slice(0, cut);
    if ((FIRST_NAMES.has(first) || (first.length >= shortest && learned.has(first))) && name(local.slice(cut)))
      return true;
  }
  return false;
}

/** Every spelling of `word` with two neighbouring characters swapped. */
export function swaps(word: string): string[] {
  const spellings: string[] = [];
  for (let at = 0; at < word.length - 1; at++)
    if (word[at] !== word[at + 1]) spellings.push(word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2));
  return spellings;
}

/** What `word` may have been meant as: two neighbouring characters swapped back, or a left-out letter put back. */
export function slips(word: string): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const inserted = [...Array(word.length + 1).keys()].flatMap((at) =>
    [...letters].map((letter) => word.slice(0, at) + letter + word.slice(at)),
  );
  return [...swaps(word), ...inserted];
}

/**
 * Two neighbouring characters swapped turn the local part into names: the whole of it reads as
 * names after the swap (`jmaes.smith`, `jsmtih`, `mar.kgarcia`), or one part of two becomes a
 * common name (`ifeoma.martinze`, whatever the other part) — the commonest slip in a form.
 * Anything that already reads as names is left alone (`asmith` and `bsmith` are two people), and
 * names under four letters do not count, where a swap as often makes another real name. With
 * `learned`, names the lists lack count too (`kasmiir.berg` once `kasimir` is known to exist).
 * Only swaps: a left-out letter as often gives another spelling of a name (sofia, sophia; kaya, kayla).
 */
export function hasMisspeltName(local: string, learned: Learned = NONE): boolean {
  if (local.length < 4 || readsAsNames(local, 1, learned)) return false;
  if (swaps(local).some((spelling) => readsAsNames(spelling, 4, learned))) return true;
  const parts = local.split(/[._-]/);
  const misspelt = (part: string) =>
    swaps(part).some((spelling) => isName(spelling, learned)) ||
    leftOut(part).some((spelling) => isName(spelling, learned));
  return parts.length === 2 && parts.some((part) => part.length >= 4 && !isName(part, learned) && misspelt(part));
}

/**
 * What `word` may have been with a letter put back, where that makes a name of LONG_NAME letters or
 * more and the letter is not one of a pair (`fairweater`, `ostrowki`: typos; `johanson`, `mathew`:
 * spellings of their own, as are the short ones, Kaya and Kayla).
 */
const LONG_NAME = 7;
function leftOut(word: string): string[] {
  if (word.length + 1 < LONG_NAME) return [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return [...Array(word.length + 1).keys()].flatMap((at) =>
    [...letters]
      .filter((letter) => letter !== word[at - 1] && letter !== word[at])
      .map((letter) => word.slice(0, at) + letter + word.slice(at)),
  );
}
