/** Common given names (English-speaking and European), enough to recognise person-shaped local parts. */
export const FIRST_NAMES = new Set(
  `aaron adam adrian ahmed alan albert alex alexander alice alicia amanda amy ana andrea andrew angela anna anne anthony antonio
  ashley barbara ben benjamin beth betty bill bob brian bruce carl carla carlos carol caroline catherine charles charlie chris
  christian christina christine christopher claire claudia colin craig daniel david deborah dennis diana diane donald donna
  dorothy douglas edward elena elizabeth ellen emily emma eric erik eva frank fred gabriel gary george gina grace greg gregory
  hannah harry heather helen henry hugo ian isabel jack jacob james jamie jane janet jason javier jean jeff jennifer jeremy
  jessica jim joan joe john jonathan jorge jose joseph joshua juan julia julie justin karen kate katherine kathleen keith kelly
  kenneth kevin kim laura lauren linda lisa louis lucas lucy luis luke marco margaret maria marie mark martin mary matthew max
  megan michael michelle mike monica nancy natalie nathan nicholas nicole olivia oscar pablo pamela patricia patrick paul paula
  peter philip rachel raymond rebecca richard robert roger ronald rose ruth ryan sam samuel sandra sara sarah scott sean sharon
  simon sophie stephanie stephen steve steven susan thomas tim timothy tom tony victoria vincent walter william zoe`.split(/\s+/),
);
