import { buildReply, type SmtpReply } from './reply';

/**
 * What an SMTP reply says about the mailbox. This file is the only place replies are interpreted.
 *
 * The reply code class (2xx/4xx/5xx), the RFC 3463 enhanced code and the text are read together:
 * text alone misleads (a permanent `5.7.1 … blocked using Spamhaus` is about *us*, not the mailbox;
 * a `450 4.1.1 … User unknown` is temporary and proves nothing), and the code alone is too coarse
 * (a bare `550` is used for both "no such user" and "you are blocked").
 */
export type ReplyClass =
  /** The server takes mail for the mailbox. */
  | 'accepted'
  /** The mailbox exists but is busy (Gmail's 4.2.1 "receiving mail at a rate"). */
  | 'mailbox_exists'
  /** Permanent: no such user. */
  | 'no_such_user'
  /** Permanent: the mailbox is disabled or deactivated. */
  | 'disabled'
  /** The mailbox is over quota (4.2.2 or 5.2.2). */
  | 'full'
  /** A temporary refusal to try again later (greylisting and friends). */
  | 'greylisted'
  /** The server refuses a further recipient in this session: probe it in a session of its own. */
  | 'too_many_recipients'
  /** Our address, host or reputation is refused (blocklists, rDNS, policy): says nothing of the mailbox. */
  | 'sender_blocked'
  /** We are sending too much or too fast (rate limits, too many connections): back off the host. */
  | 'rate_limited'
  /** Relaying or authentication refused: the server is not the mailbox's MX for us. */
  | 'relay_denied'
  /** TLS must be negotiated first. */
  | 'tls_required'
  /** Any other temporary failure. */
  | 'temporary'
  /** A permanent refusal whose reason cannot be told: not evidence against the mailbox. */
  | 'unclassified';

/**
 * Where in the dialogue a reply came: the same words are about us before RCPT and about the mailbox
 * after it. The prober never sends DATA, but replies given at end of DATA (bounce texts, the corpus)
 * are read too: a recipient refused there in plain words is refused for its mailbox, content refused there is ours.
 */
export type SmtpStage = 'banner' | 'ehlo' | 'mail' | 'rcpt' | 'data';

interface Rule {
  class: ReplyClass;
  /** Reply code classes the rule applies to. */
  codes: Array<4 | 5>;
  /** Exact reply codes (`503`); absent: any. */
  replyCodes?: number[];
  /** Enhanced codes (exact, or `5.1.*` prefixes); absent: any. */
  enhanced?: string[];
  /** Text pattern; absent: any. */
  text?: RegExp;
  /** Only on these stages; absent: the stages that speak of the mailbox (RCPT, DATA). */
  stages?: SmtpStage[];
}

/**
 * Words about *us*: our IP, host, domain, envelope sender, authentication, reputation or content.
 * Read in every language a server may answer in, since they outrank any word about the mailbox.
 */
const ABOUT_US_TEXT = new RegExp(
  [
    // Blocklists and reputation, of our host or of the links in our message (not cPanel's callout guess "they may be
    // blacklisted": the verifier's, read as hedged).
    /spamhaus|spamcop|barracuda|\bsurbl\b|\buribl\b|\b(?:blacklisted|blocklisted|banned|prohibited|forbidden) (?:urls?|uris?|links?)\b|(?:正文|内容|信件|邮件)[^，。]{0,8}包含[^，。]{0,12}(?:禁止|黑名单|违禁|非法)|sorbs|mailspike|senderbase|cloudmark|trend micro|blocked using|block ?list|(?<!they may be )black ?list|\bdns-?bl\b|\brbl\b|(?<!not )listed (?:at|on|in|by)|reputation|banned sending ip|banned sender/,
    // Our host: address, rDNS, HELO, dynamic ranges, connections refused.
    /client host .*(?:blocked|rejected)|client host rejected|(?:your|sender|sending|source|client|connecting) (?:ip|address|host|network|server|mail server|domain)\b.{0,60}(?:blocked|listed|not (?:allowed|accepted|authorized|registered)|refused|rejected|banned|poor|has no|filtered|not found|unknown|not resolv)|\bip (?:address )?(?:\S+ )?(?:is )?(?:rejected|blocked|banned|hangup)|not accepted from (?:this|your) ip|from your location|administratively denied|connections? (?:will not be|not|is not) accepted|(?:mail|messages?) from [[(]?[\d.]+[\])]? (?:refused|rejected|not allowed|blocked|weren't sent|temporarily deferred|will be)|reverse (?:dns|hostname)|\bptr\b|\brdns\b|dynamic ip|dialup|cannot find your hostname|helo command rejected|(?:not|n't) (?:currently )?(?:accept(?:ing|s)?|receiv(?:e|es|ing)|tak(?:e|es|ing)) (?:any )?(?:e-?mails?|mails?|messages|connections) from (?:your|this) (?:sender(?:'s)? )?(?:ip|address|host|network|server|sender|domain)\b|\b(?:sender|ip|host|client)\b[^.]{0,20}?\bin (?:the )?(?:pris(?:i)?on|jail|penalty ?box|sin ?bin)\b|ip not in whitelist|\bnot (?:in|on) (?:the |our )?(?:list of )?(?:allowed|permitted|authori[sz]ed|approved) (?:senders|sending (?:users|addresses|hosts|domains))\b|不在[^，。]{0,12}(?:允许|许可)的?(?:发信|发送|发件)|traffic not accepted|intrusion prevention|over ipv6|connections? from (?:you|your (?:ip|host|address|server|network))\b[^.]{0,30}\b(?:denied|refused|rejected|blocked|not (?:allowed|accepted|permitted))|\bhost (?:is )?denied\b/,
    // Our envelope sender and its authentication.
    /sender (?:address )?(?:is )?(?:rejected|blocked|denied)|sender(?:'s)? (?:e-?mail |mail )?(?:address|account|mailbox)\b.{0,40}(?:unknown|not found|invalid|does not exist|not exist|not resolve|disabled|deactivated|suspended|closed|locked|inactive|(?:not|n't) an? (?:valid|known|local|registered))|\breturn-?path\b|\bafter mail from\b|your (?:e-?mail |mail )?(?:address|domain) (?:is |was |has been )?(?:unknown|not found|invalid|does not exist)|your (?:e-?mail |mail )?(?:address|domain)(?: \([^)]*\))? (?:has been|is|was) (?:blocked|blacklisted|banned)|invalid dns\b|unresolvable (?:rfc.?5321 )?(?:mail ?)?from domain|resource record|sender verif(?:y|ication) failed|sender (?:e-?mail )?(?:address )?(?:cannot|could ?n[o']t|can't) be verified|\b(?:from|sender)(?:\/(?:from|sender))?(?: header)? (?:display )?(?:name|field) (?:is )?(?:not valid|invalid|missing|malformed|not allowed)|verification failed for|bad (?:outbound )?sender|sender'?s? (?:mailbox|system) address|fake sender|null sender|(?:disabled|suspended|blocked|locked) (?:for|from) sending|\bsending\b(?:[^.]{0,30}\b(?:is|has been))? (?:disabled|suspended|blocked)|sender address has null mx|\bfrom["']?(?: |: ?)(?:header|address|domain)\b|header from|(?:unknown|invalid) sender|sender (?:is )?(?:unknown|invalid|not found)|unauthori[sz]ed sender|sender (?:is )?(?:not authori[sz]ed|unauthori[sz]ed)|\bhelo\b|\behlo (?:name|host(?:name)?|domain|argument)|envelope sender|sender domain|domain of sender|sender has no|unregistered domains|unauthenticated|sender (?:was )?not authenticated|sendernotauthenticated|authentication didn't pass|(?:\b|open)spf\b|\bdkim\b|\bdmarc\b|sender id|spoof|permissions to (?:send|submit)|\bnot (?:authori[sz]ed|allowed|permitted) to send (?:(?:e-?)?mails?|messages?) (?:from|as|with|using|on behalf of) (?:the |this )?(?:(?:e-?mail |sender )?address|identity|<?x@x\.x)|nicht berechtigt,? (?:e-?mails?|nachrichten) (?:im namen von|als|mit der adresse)|pas autoris[ée]e?s? à envoyer (?:des |de )?(?:messages|courriels|e-?mails) (?:au nom de|en tant que|avec l'adresse)|no (?:est[áa] )?autorizad[oa] (?:a|para) enviar (?:correos?|mensajes|e-?mails) (?:como|desde|en nombre de)|\b(?:log ?in|authenticate)\b[^.]{0,20}\bto send (?:e-?)?(?:mail|messages?) (?:from|as)\b|\bnot (?:an? )?(?:authori[sz]ed|allowed|permitted|approved) (?:sender|poster|owner|member)s?\b|\bonly (?:list )?(?:members|subscribers|owners|moderators) (?:may|can) (?:post|send)|access to (?:submit messages to )?this e-?mail system|user in blacklist|identit(?:y|ies)\b[^.]{0,40}\b(?:not verified|unverified|failed)|(?:un)?verified (?:sender|sending) (?:identit|domain|address)|sender signature|sending domain|\b(?:sender|mail from|return|envelope from)(?:'s)? (?:e-?mail |mailbox )?address\b[^.;]{0,15}?\b(?:syntax|malformed|ill-?formed)|\b(?:syntax error|bad syntax|invalid syntax|malformed|ill-?formed) (?:in|of|for) (?:the )?(?:sender|mail from|return|envelope from)\b/,
    // Our envelope sender named by its command ("MAIL FROM" mailbox unavailable), or not the identity we logged in as.
    /\bmail from\b\W{0,3}(?:address|account|mailbox|domain) (?:is |was |has been )?(?:unavailable|unknown|invalid|not found|(?:does not|doesn't) exist|rejected|refused|denied|not allowed|not verified|unverified)\b|(?:does ?n[o']t|does not|do not|not) (?:conform|match|correspond|agree)(?: with| to)? (?:the )?(?:authenticat|logged[- ]in|login|auth(?:orized)? (?:user|account|identity))|not owned by (?:the )?(?:authenticated |logged[- ]in )?user|(?:sender|login|authenticated user) mismatch/,
    // Policy, content and behaviour.
    /spam|junk ?(?:e-?)?mail|unsolicited|complaints|forgery|unusual (?:rate|traffic|sending)|suspicious|namespace mining|(?:directory|address|e-?mail) harvest|dictionary attack|w[öo]rterbuch-?angriff|attaque (?:par |de |du )?dictionnaire|ataque (?:de |por )?dicion[áa]rio|ataque (?:de |por )?diccionario|attacco (?:a |con |del )?dizionario|словарн\w* атак|атак\w* по словарю|字典攻击|辞書攻撃|사전 ?공격|too many (?:unknown|invalid|bad|non-?existent|failed) (?:users?|recipients?|addresses|rcpts?)\b|excessive unknown recipients|(?:for|due to|by|under) (?:local |security |our )?polic(?:y|ies)\b|polic(?:y|ies) (?:reasons|violation|restrictions)|local policy|security polic|blocked senders|administrative prohibition|envelope blocked|content (?:filter\w*|reject(?:ed|ion)?|denied|refused|blocked|not (?:allowed|accepted|permitted))\b|\b(?:reject|refus|block|den(?:y|i))(?:e|es|ed|ing|s)? (?:the |this |your |such )?(?:(?:banned|forbidden|prohibited|disallowed|illegal|objectionable|inappropriate|unacceptable|unwanted) )?content\b(?!-)|\b(?:banned|forbidden|prohibited|disallowed|objectionable|illegal) (?:content|attachments?|file ?(?:types?|names?|extensions?))\b|\b(?:bad|blocked|dangerous|unsafe|executable|restricted|unacceptable|unallowed|unsupported) (?:attachments?|file ?(?:types?|names?|extensions?)|(?:types?|extensions?) of (?:the )?(?:attachment|file))\b|\b(?:file ?)?(?:types?|extensions?|names?) (?:\S+ )?(?:in|of) (?:the |an |your )?attachments?\b|\battachments?(?: (?:types?|extensions?))? (?:is |are |was |were )?(?:not (?:allowed|permitted|accepted)|blocked|banned|forbidden|prohibited|refused|rejected)\b|(?:pi[èe]ces? jointes?|(?:datei)?anh(?:a|ä|ae)nge?|(?:archivos? )?adjuntos?|allegat[oi]|anexos?|вложени[а-яё]*)\b[^.;]{0,20}?(?:interdit|refus[ée]|non autoris[ée]|nicht (?:erlaubt|zul(?:ä|ae)ssig)|verboten|blockiert|no permitid|prohibid|bloquead|non (?:consentit|ammess)|vietat|bloccat|n[ãa]o permitid|proibid|запрещен)|contenu (?:interdit|prohib[ée]|banni|non autoris[ée])|(?:verbotene[nrs]?|unzul(?:ä|ae)ssige[nrs]?) (?:inhalt|anh(?:ä|ae)ng)|contenido (?:prohibido|no permitido|vetado)|contenuto (?:vietato|proibito|non (?:consentito|ammesso))|conte[úu]do (?:proibido|n[ãa]o permitido)|запрещ[её]нн[а-яё]* (?:содержимо|контент|вложени)|违禁内容|禁止(?:的)?内容|禁止されたコンテンツ|(?:inhalt|contenu|contenido|contenuto|conte[úu]do) (?:wurde )?(?:abgelehnt|zur[üu]ckgewiesen|blockiert|refus[ée]|rejet[ée]|bloqu[ée]|rechazado|bloqueado|rifiutato|bloccato|rejeitado|recusado)|message content|\b(?:subject|header)s?(?: line| field)? (?:is |are )?(?:wrongly|badly|improperly|incorrectly) (?:formatted|encoded)\b|\b(?:wrongly|badly|improperly|incorrectly) (?:formatted|encoded) (?:subject|header)s?\b|objet mal (?:form[ée]|encod[ée])|betreff(?:zeile)? (?:ist )?(?:fehlerhaft|falsch) (?:formatiert|kodiert)|asunto mal (?:formado|formateado|codificado)|message (?:was )?filtered|banned word|not rfc ?(?:\d+ )?compliant|invalid to header|unexpected volume|rejected due to content|(?:mail|message) (?:data|body) (?:was |is |has been )?(?:refused|rejected)|access denied, |too many bad commands|bounce attack|\bdns check fail|\bscored (?:too high|[\d.]+ (?:spam )?points)|\bvirus|malware|bad_?header|duplicate header|no valid '?[\w-]+'? (?:dns|txt) record|rejection\W{1,3}abuse\b/,
    // Blocks of us that name neither a list nor our address: terse, vendor-tagged, or about our kind of host.
    /^access denied\b|invalid ip for sending|\(bl\)|not accepting connections|open (?:relay|proxy)|not allowed to connect|host network not allowed|no access from mail server|smtp server of your isp|^go away\b/,
    // The same, in other languages: sender, blocklist, our IP address.
    /absender|exp[ée]diteur|adresse (?:de retour|d'envoi)|[ée]metteur|remitent|відправни|подател|пошиљал|po[šs]iljatel|po[šs]iljala|השולח|שולח|المرسل|mittente|remetente|afzender|avsender|afsender|lähettäjä|feladó|expeditor|αποστολέ|người gửi|pengirim|nadawc|odes[íi]latel|gönderen|avsändare|발신자|отправител|发件人|发信人|送信者|送信元|sperrliste|liste noire|lista negra|черн(?:ом|ый) списк|ブラックリスト|黑名单|adresse ip source|service refuse/,
  ]
    .map((part) => part.source)
    .join('|'),
  'i',
);

/**
 * Limits on how much we send per hour or day, or how fast: a request to come back later, whatever else
 * the reply says of us ("client host rejected: please try again slower") or of recipients ("has sent to
 * too many recipients this hour" is not a per-session cap: another session would be refused too). NetEase and its
 * peers say it as a count within a time window, too many identical messages, or a request to send less often.
 */
const SENDING_LIMIT_TEXT =
  /try again slower|\b(?:outbound|outgoing) (?:mail |message |e-?mail )?quota\b|\b(?:send|sent|sending)\b[^.;]{0,30}?\b(?:messages|e-?mails|mails|recipients)\b[^.;]{0,10}?\b(?:in|within|per) (?:a |any |each |one )?(?:24|twenty-four)[- ]hours?\b|\b(?:nachrichten|e-?mails)\b[^.;]{0,20}?\b(?:in|innerhalb von|pro) 24 stunden\b[^.;]{0,20}?\b(?:senden|versenden|verschicken)|\benvoyer\b[^.;]{0,30}?\b(?:messages|courriels|e-?mails)\b[^.;]{0,10}?\b(?:en|par|sur) 24 ?h(?:eures)?\b|\benviar\b[^.;]{0,30}?\b(?:mensajes|correos)\b[^.;]{0,10}?\b(?:en|por|cada) 24 horas\b|too many\b[^.]{0,40}?\b(?:this (?:hour|minute)|today|per (?:hour|day|minute)|an hour|a day|in a short (?:period of )?time)\b|(?:max(?:imum)?|limits?|recipients|messages|e?mails)\b[^.]{0,40}?\bper (?:hour|day|minute|\d+ minutes)\b|(?:hourly|daily)\b[^.]{0,20}\b(?:limit|quota)|(?:mail|sending|message) limit (?:has been |was |is )?(?:reached|exceeded)|too many (?:messages|e?mails)\W{0,3}try again|message count quota|(?:sent|send|sending) (?:too|to) many (?:e-?mails|mails|messages)\b(?! contain)|^too many (?:e-?mails|mails|messages)\W*(?:\(|$)|messages per session|excessive volume|(?:message|volume|sending) threshold|tenant has exceeded|rate over ?limit|exceeded (?:your|the) (?:messaging|sending|message|mail|e-?mail) limits?\b|exceeded (?:the )?(?:permitted|allowed) limits?|\bper (?:hour|day|minute)\b[^.]{0,30}\blimit|przekroczono limit|limiti? a[sş][ıi]ld[ıi]|(?:邮件|发送|发信)[^，。]{0,6}(?:数量|量)[^，。]{0,6}(?:超过|超出)|(?:短期内|短时间内|一段时间内|当天|当日|今天|今日|每天|每日|每小时|\d+\s*(?:分钟|小时|天)内)[^，。]{0,12}(?:(?:数量|次数|数)[^，。]{0,6}(?:超过|超出|达到)|过多|太多|大量)|(?:过多|太多|大量)的?相同|(?:降低|控制|减少|放慢)[^，。]{0,6}(?:发信|发送|投递)(?:频率|速度)|短時間(?:に|で)[^、。]{0,10}(?:大量|多数)|단시간(?:에|에\s)?[^.]{0,10}(?:대량|많은)/i;

/**
 * A mailbox holding too many messages, on the server or in the mailbox (Web.de's "Benutzer hat zuviele Mails auf dem
 * Server"): its storage, not our sending, though a rate's words ("zu viele Mails") are in it.
 */
const TOO_MANY_STORED_TEXT =
  /too many (?:messages|e-?mails|mails|files) (?:stored |kept |waiting )?(?:on (?:the|this|his|her|their) (?:mail ?)?server|in (?:the|this|his|her|their|the user's) (?:mail ?box|inbox|mail ?folder|account))\b|zu ?viele (?:e-?mails|mails|nachrichten) (?:auf dem (?:mail)?server|im (?:postfach|posteingang))|trop de (?:messages|courriels|mails) (?:sur le serveur|dans (?:la|sa|cette) bo[iî]te)|demasiados (?:mensajes|correos) (?:en el servidor|en (?:el|su|este) buz[óo]n)|troppi (?:messaggi|e-?mail) (?:sul server|nella (?:sua |propria )?casella)|(?:muitas|demasiadas) mensagens (?:no servidor|na caixa)|слишком много (?:писем|сообщений) (?:на сервере|в (?:почтовом )?ящике)|te veel (?:berichten|e-?mails) (?:op de server|in de (?:mailbox|postbus))/i;

/** Too much, too fast, too many connections from us. */
const RATE_TEXT =
  /too many (?:concurrent |simultaneous |open )?(?:smtp )?(?:connections|sessions)|too (?:many|frequent) connects|too many errors from (?:your|this)|\((?:dyn|rly|rtr|con):t\d\)|(?:sessions|connections) opened|(?:rate|message|messages|throttling|connection|sending|relay|hourly|daily|concurrency|parallel|simultaneous|session)[\w ]{0,12} limit (?:exceeded|reached|hit)|rate limit(?:ed|ing)?\b|\bmax(?:imum)? (?:\w+ )?rate (?:has been |was |is )?exceeded\b|ratelimit|daily limit|frequency limit|frequency of [\w ]{1,30}? is limited|too many (?:messages|mails?|recipients) (?:from|for this sender|received this)|too much mail from|too many (?:same|identical|similar)[\w -]{0,12} (?:e?mails|messages)|throttl|slow down|sending too fast|\b(?:retry(?:ing)?|retries|re-?connect(?:ing|s)?|re-?trying|trying again|coming back|connecting|sending|attempts?) (?:again )?(?:far |much )?too (?:fast|soon|quickly|rapidly|often|frequently)\b|(?:r[ée]essa\w*|reconnect\w*|envo[iy]\w*|connexions?) (?:beaucoup )?trop (?:vite|rapidement|t[ôo]t|souvent|fr[ée]quemment)|(?:versuch\w*|wiederhol\w*|verbind\w*|send\w*) (?:sich )?(?:viel )?zu (?:schnell|fr(?:ü|ue)h|oft|h(?:ä|ae)ufig)|(?:reintent\w*|reconect\w*|envi\w*|conect\w*) demasiado (?:r[áa]pido|pronto|a menudo|seguido|frecuente)|(?:riprov\w*|riconnett\w*|invi\w*|connett\w*) troppo (?:velocemente|presto|spesso|frequentemente)|(?:повтор[а-яё]*|переподключ[а-яё]*|отправл[а-яё]*|подключ[а-яё]*) слишком (?:быстро|часто|рано)|重试(?:过快|太快|过于频繁)|message (?:submission )?rate|mail flood|mail ?bomb|server busy\b.{0,40}?\bfrom\b|ports are busy|max(?:imum)? (?:number of )?(?:concurrent )?(?:messages? per connection|(?:server )?connections)|how many messages can be sent|submission quota|email quota exceeded|sending quota|policy rejection.{0,3}quota|tenant has exceeded|connection (?:rate )?limit|dynamic screening|trop de (?:connexions|messages|courriels|mails)|zu viele (?:verbindungen|nachrichten|e-?mails|mails)|demasiad[oa]s (?:conexiones|mensajes|correos)|tropp[ie] (?:connessioni|messaggi)|muitas (?:conex[õo]es|mensagens)|слишком много (?:соединений|подключений|сообщений|писем)|te veel (?:verbindingen|berichten)|příliš mnoho (?:spojení|zpráv)|(?:za dużo|zbyt wiele|zbyt dużo) (?:połączeń|wiadomości)|çok fazla (?:bağlantı|mesaj)|接続数が多すぎ|并发连接|连接数(?:过大|过多|太多)|频率|频繁|頻繁|発信数|送信数|발송량|전송량/i;

/** Our IP address named in other languages (after the rate words: "zu viele Verbindungen von Ihrer IP-Adresse"). */
const OUR_IP_TEXT =
  /(?:该|此|您的|你的)\s?ip|adresse ip|ip-adress?e|ip-adres\b|adres ip|ip-osoite|ip[- ]c[íi]m|ip 주소|địa chỉ ip|alamat ip|direcci[óo]n ip|indirizzo ip|endere[çc]o ip|ip-адрес|ip地址|ipアドレス/i;

const VENDOR_SENDER_TAG =
  /\[(?:tss?|bl|cs|hm)\d\d\]|\b(?:sc|dy|ou)-00\d\b|\bas\(\d+\)|\b(?:bl|hl)\d{6}\b|aup#(?:cx|in-13)|\bcxbl\b|\bipbl\d+|\bofr\d*_1\d\d\b|\bdt:spm\b/i;

const RELAY_TEXT =
  /relay(?:ing)? (?:access |operation )?(?:is |was |has been |are )?(?:denied|not permitted|prohibited|rejected|not allowed|disabled)|relaying to \S+ (?:denied|prohibited|not (?:allowed|permitted))|unauthori[sz]ed relay|(?:isn't|is not|not) allowed to relay|relaying disallowed|relais (?:est |a été )?(?:refus|interdit|non autoris)|relay denied|denies relay|unable to relay|(?:we )?do not relay|not permitted to relay|open relay not allowed|(?<!domain or user isn't in my list of )allowed rcpthosts|credentials for relay|local user only|\bmust be (?:an? )?local (?:recipient|user|address)|\blocal (?:recipients|users|addresses) only\b|\bonly (?:accepts? )?(?:mail )?(?:for|to) local (?:recipients|users|domains|addresses)\b|nur (?:f(?:ü|ue)r |an )?lokale (?:empf(?:ä|ae)nger|benutzer)|destinataires? locaux uniquement|solo (?:para )?destinatarios locales|\bas a relay\b|insecure mail relay|\bno relaying\b|not a gateway|relay through this (?:machine|server)|not an open relay|\bnot local host\b|relaying mail to|specified domain is not allowed|not configured to relay|we don'?t handle mail for|(?:unavailable|invalid(?: address)?|unknown) or (?:is )?not local|delivery is not allowed to this address|log in first|no longer relays?\b|domain is not in my list of allowed (?:rcpt)?hosts|(?:\bmail from\b|\bsender\b)[^.;]{0,15}?\bnon-?local (?:account|user|sender|address)|(?:\bmail from\b|\bsender\b)[^.;]{0,25}?\b(?:is |are )?not (?:in|one of|part of|within|from) (?:my|our|this server's|the local|the hosted) (?:local |hosted )?domains?\b|(?:absender\w*|exp[ée]diteur|remitente|mittente|remetente)\b[^.;]{0,25}?(?:nicht (?:in |aus )?(?:meiner|unserer) domain|n'(?:est|appartient) pas (?:dans |à |de )?(?:mon|notre) domaine|no (?:est[áa] en|pertenece a|es de) (?:mi|nuestro) dominio|non (?:è (?:nel|del)|appartiene al) (?:mio|nostro) dominio|não (?:est[áa] no|pertence ao|é do) (?:meu|nosso) dom[íi]nio)|\b(?:domain of (?:the )?(?:forward[- ]path|recipient(?: address)?|rcpt(?: to)?)|(?:forward[- ]path|recipient|rcpt) domain) (?:is )?not (?:allowed|permitted|accepted|local|hosted|handled|served)\b|relay(?:ing)? (?:ist |è |est[áa] )?(?:nicht (?:erlaubt|gestattet)|verweigert|untersagt|non (?:consentito|permesso|autorizzato)|no (?:permitido|autorizado))|ретрансляци\w* (?:запрещен|не разрешен)|(?:不开放|不允许|不支持|拒绝|禁止|不能|无法)[^，。]{0,6}(?:转发|中继|转信)|\b(?:not (?:allowed|permitted|authori[sz]ed) to|may not|cannot|can't) (?:send|relay|deliver) (?:(?:e-?)?mails?|messages?) to (?:other|external|remote|outside|foreign) (?:servers|domains|hosts|networks|systems)\b|\bkeine (?:e-?mails?|nachrichten) an (?:andere|externe|fremde) (?:server|domains?)\b|\bpas autoris[ée]e?s? à envoyer (?:des |de )?(?:messages|courriels|e-?mails) (?:à|vers) d'autres (?:serveurs|domaines)|\bno (?:est[áa]s? )?autorizad[oa] (?:a|para) enviar (?:correos?|mensajes|e-?mails) a otros (?:servidores|dominios)|relay(?:ing)? (?:check|test|verification|control)s?\b[^.;]{0,20}?\b(?:fail(?:ed|ure|s)?|error)\b|(?:转发|中继)(?:检查|验证)失败|匿名转发|中継(?:は)?(?:拒否|禁止|許可されていません|できません)|릴레이(?:가|는)? ?(?:거부|허용되지|금지)/i;
const AUTH_TEXT =
  /authentication required|requires authentication|not authenticated|auth(?:entication)? (?:is )?required|authrequired|authentification requise|\bmust (?:be authenticated|authenticate|(?:first )?log ?in)\b|\bauthentication (?:is )?(?:needed|mandatory)|please authenticate|authentifizierung (?:ist )?erforderlich|autenticaci[óo]n (?:es )?(?:requerida|necesaria|obligatoria)|autenticazione (?:è )?(?:richiesta|obbligatoria)|требуется (?:авторизация|аутентификация)|需要(?:身份)?(?:验证|认证)|認証が必要|인증이 필요/i;

/**
 * Authentication demanded before the command, in the words of a command out of order ("Invalid command: Must issue an
 * AUTH command first"): read as the demand it is, before the words of a protocol error.
 */
const AUTH_FIRST_TEXT =
  /\b(?:(?:must|need to|have to|please) )?(?:issue|send|use|give|do|perform) (?:an? |the )?(?:smtp )?auth(?:entication)?\b(?: command)? first\b|\bauth(?:entication)?(?: command)? (?:is )?(?:required|needed|expected) (?:first|before)\b|\b(?:bitte )?zuerst (?:smtp-?)?auth(?:entifizier\w*)?\b|\bauth(?:entifiez-vous|entification)? d'abord\b|\bautent\w+ (?:primero|prima|primeiro)\b|\b(?:primero|prima|primeiro) (?:debe |deve |è necessario )?autent\w+/i;

/**
 * Our login refused (credentials wrong or failing), not merely asked for: said of us, as a policy service's
 * "Authentication failure" under 5.7.0 is.
 */
const AUTH_FAILED_TEXT =
  /\b(?:smtp[ -])?auth(?:entication)?\b[^.;]{0,12}?\b(?:failed|failure|unsuccessful|invalid|rejected|refused)\b|\b(?:invalid|bad|wrong|incorrect) (?:auth(?:entication)? )?(?:credentials|password)\b|\bcredentials? (?:are |were |is |was )?(?:invalid|rejected|refused|incorrect)\b|authentification (?:invalide|[ée]chou[ée]e|refus[ée]e)|authentifizierung (?:ist )?fehlgeschlagen|autenticaci[óo]n (?:fallida|incorrecta|inv[áa]lida)|autenticazione (?:fallita|non riuscita)|falha (?:na|de) autentica[çc][ãa]o|autentica[çc][ãa]o (?:falhou|inv[áa]lida)|(?:身份)?认证失败|認証(?:に)?失敗|인증(?:에)? 실패|ошибка (?:авторизации|аутентификации)/i;

/** Who or what a reply may say is unknown: the mailbox, named as a word or written as an address (not the sender's). */
const MAILBOX_NOUN = String.raw`(?<!\bsender(?:'s)?[ -])(?:user(?:'s|s)?|recipients?|addressees?|mailbox(?:es)?|accounts?|(?<!ip[ -])address(?:es)?|local[ -]?part|<[^<>\s]+>|[^\s<>()]+@[^\s<>()]+)`;
/** What is said of it: unknown, absent, invalid. */
const UNKNOWN_VERB = String.raw`(?:unknown|not known|(?:was |could not be |cannot be |can't be |is )?not? found|(?:does|do|did) not? exists?|do(?:es|s)?n'?t exists?|(?:is )?not exists?|is not valid|(?:wrong or )?no longer valid|invalid|not present|not listed|(?:could ?n[o']t|cannot|can ?not|can't) be (?:found|located)|no longer exists?|(?:is )?not used\b(?! (?:for|to|by)\b))`;

/**
 * No recipient left valid (qmail's "no valid recipients", at RCPT or at end of DATA), in several languages: read as
 * sisimai reads it, every address refused as unknown.
 */
const NO_VALID_RECIPIENTS_TEXT =
  /\bno valid recipients?\b|\b(?:aucun|pas de) destinataires? valides?\b|keine g(?:ü|ue)ltigen? empf(?:ä|ae)nger|ning[úu]n destinatario v[áa]lido|no hay destinatarios v[áa]lidos|nessun destinatario valido|nenhum destinat[áa]rio v[áa]lido|нет (?:допустимых|действительных|корректных) получателей|没有有效的?收件人/i;

/**
 * The recipient's address malformed (its syntax, a part too long, not an address RFC 5321 allows), in several
 * languages: no mailbox can have it. Said of the address, not of our command ("RCPT TO syntax error" is the command's).
 */
const BAD_RECIPIENT_ADDRESS_TEXT =
  /\b(?:syntax error|bad syntax|invalid syntax|malformed|ill-?formed) (?:in|of|for) (?:the )?(?:recipient|destination|forward-?path)\b|\b(?:recipient|destination)(?:'s)? (?:(?:e-?mail |mailbox )?address )?(?:syntax (?:error|invalid|not allowed)|(?:is )?(?:malformed|ill-?formed))\b|\blocal[- ]?part (?:is )?too long\b|\b(?:local[- ]?part|address|mailbox name)\b[^.;]{0,20}?\b(?:exceeds?|longer than|more than) (?:the )?(?:max(?:imum)? )?(?:length|\d+ (?:characters|chars|octets))|\bnot an? (?:valid|legal|well-?formed|proper) rfc[ -]?\d+(?:[ -]compliant)? (?:e-?mail )?address\b|erreur de syntaxe dans l'adresse (?:du |de )?destinataire|syntaxfehler in der empf(?:ä|ae)ngeradresse|error de sintaxis en la direcci[óo]n (?:del )?destinatario|errore di sintassi nell'indirizzo (?:del )?destinatario|partie locale (?:est )?trop longue|lokaler teil (?:ist )?zu lang|parte local (?:es )?demasiado larga/i;

/**
 * We may not send to the address ("You are not allowed to send mail to …"), in several languages: the recipient's
 * restriction on who writes to it, which proves it gone no more than it proves it there, whatever code is beside it.
 */
const NOT_ALLOWED_TO_SEND_TO_TEXT =
  /\b(?:you (?:are|were) not|you're not|you aren't|you may not|you cannot|you can't) (?:allowed |permitted |authori[sz]ed )?(?:to )?(?:send|write|deliver) (?:(?:e-?)?mails?|messages?) to\b(?![^.;]{0,60}\b(?:does ?n[o']t exist|unknown|not found|no such)\b)|\bsie d(?:ü|ue)rfen keine (?:e-?mails?|nachrichten) an (?!andere|externe|fremde)|\bvous n'(?:ê|e)tes pas autoris[ée]e?s? à envoyer (?:des |de )?(?:messages|courriels|e-?mails|mails) à (?!d'autres)|\bno (?:est[áa]s? )?autorizad[oa] (?:a|para) enviar (?:correos?|mensajes|e-?mails) a (?!otros)|\bnon (?:sei|è|siete) autorizzat[oaie] a inviare (?:messaggi|e-?mail|posta) a (?!altri)/i;

/**
 * Exim refuses DATA quoting the one error every RCPT got ("All RCPT commands were rejected with this error: …"): read
 * as that reply to RCPT, not as the protocol error around it.
 */
const RCPT_ERROR_QUOTE =
  /\ball (?:rcpt commands|recipients)\b(?: were| have been)? (?:rejected|refused) with (?:this|the following) error:\s*(.+?)(?:\s+valid rcpt command must precede data\b.*)?$/i;

const NO_SUCH_USER_TEXT = new RegExp(
  [
    NO_VALID_RECIPIENTS_TEXT,
    // "<noun> [up to five words] <verb>": "user unknown", "the user's email name is not found", "<a@b> does not exist".
    String.raw`${MAILBOX_NOUN}(?:[\s:.]+[^\s]+){0,5}?[\s:.]+${UNKNOWN_VERB}\b`,
    // "<adjective> [one word] <noun>": "unknown e-mail address", "invalid-recipient", "bad recipient", "nonexistent user".
    String.raw`(?<!\bfrom |\btoo many )\b(?:unknown|invalid|bad|non-?existent|illegal)[ _-](?:\S+ )?(?:user|recipient|addressee|mailbox|account|address|alias|local[ -]?part)`,
    /userunknown|no such (?:local |e-?mail )?(?:user|recipient|mailbox|account|address|person|id|login)\b|(?:unable to|cannot|can't|could ?n[o']t) find (?:the |that )?(?:user|recipient|mailbox|account|address)|(?:does not|doesn't) have an? (?:mailbox|e-?mail account)|no (?:account|mailbox) (?:with|for) (?:that|this) address|(?:account|mailbox|user|address) (?:has been|was) (?:deleted|removed)\b|(?<!\b(?:your|sender(?:'s)?) )\b(?:account|mailbox|user) (?:is |got )?(?:deleted|removed|purged)\b|no (?:account|mail-?box|user) (?:here )?(?:by that name|here|found)|\b(?:no ?one|nobody|no (?:person|user|one)) (?:is )?(?:here )?(?:with|at|by|under|using|named|called) (?:that|this|the|such an?|the given) (?:e-?mail(?: address)?|address|name|mailbox)\b|(?:no hay|no existe) nadie (?:con|en|bajo) (?:ese|esa|este|esta|dicho|dicha|tal) (?:e-?mail|correo|direcci[óo]n|nombre|buz[óo]n|cuenta)|(?:n[ãa]o h[áa]|n[ãa]o existe) ningu[ée]m (?:com|neste|nesse|nesta|nessa) (?:(?:esse|essa|este|esta|tal) )?(?:e-?mail|endere[çc]o|nome|conta)|(?:non c'[èe]|non esiste) nessuno (?:con|a|presso) (?:questo |quest'|quel |tale )(?:indirizzo|e-?mail|nome)|(?:il n'y a|n'existe) (?:personne|aucune personne) (?:avec|à|sous) (?:cette|cet|ce) (?:adresse|e-?mail|courriel|nom)|(?:niemand|keine person) (?:mit|unter) (?:dieser|diesem) (?:e-?mail-?)?(?:adresse|e-?mail|namen)|(?<!\b(?:you are|you're|sender is) )not an? (?:valid|known|local|active|existing|registered) (?:e-?mail )?(?:user|recipient|mailbox|address|account)|(?<!\b(?:you|sender) (?:is|are))n't an? (?:valid|known|local|active|existing|registered) (?:e-?mail )?(?:user|recipient|mailbox|address|account)|your envelope recipient (?:has been |is )?(?:denied|rejected|invalid)|\bbadrcptto\b|(?:recipient|mailbox|(?<!\b(?:ip|your|sender|sender's|return|reply) )(?:e-?mail |mail )?address) (?:is )?not registered|can'?t accept (?:user|recipient|address)|(?:recipient|user|mailbox|(?<!\b(?:ip|your|sender|sender's) )address) (?:is )?not local\b|(?:recipient|user|rcpt)(?: <[^<>\s]+>)? not ok\b|not a member of (?:this |the |our )?domain|\bnot found (?:the )?(?:recipient|user|mailbox|account)\b|domain or user isn't in my list of allowed rcpthosts|\binvalid rcpt\b(?!(?: to)?\s*(?:syntax|command|param|arg))|not (?:listed in (?:the )?(?:public |domino )?(?:name & address book|directory)|user of this server|our customer)|(?:bad ?rcpt ?to|bad ?recipient ?to|valid ?rcpt ?to) list|don't exists that user|doesn't have an? [\w.-]+ account|(?:does not|doesn't) have an account|no mail[ -]?box|unavailable mail user|undeliverable address|unrouteable address|unroutable address|unresolvable address|\bnosuchuser\b|recipient verif(?:y|ication)(?: from \w+)? failed|(?:recipient|user|mailbox|(?<!\b(?:ip|your|sender|sender's) )address) (?:is )?not in (?:(?:my|our|the) )?(?:local |route |routing |user |recipient |address )?list\b(?! of allowed)|host unknown|recipient domain must exist|recipientnotfound|recipnotfound|address (?:is )?possibly incorrect|mailbox name not allowed|recipient address has null mx|(?:mailbox|user|recipient|account) has moved\b|(?:address|user|recipient|mailbox) (?:is )?not handled by this (?:system|server)|need fully[- ]qualified (?:e-?mail )?address|address must (?:contain|include|have) a domain|\bmust (?:specify|include|give) (?:a|the) domain\b|\ba valid (?:e-?mail |recipient )?(?:address|recipient) (?:is )?required|(?<!\bsender )\b(?:recipient|address|user|mailbox) (?:cannot|could ?n[o']t|can't) be verified|\b(?:invalid|unknown|bad)[ _-](?:route|routing|server|srs|batv|prvs|bounce|return[ -]path) (?:token|tag|hash|signature)\b/,
    // The address said not to exist in the word "e-mail" ("Email not exist"), and "no such user" with its negation
    // mangled ("Not such user", a typed "So such user") or said in French ("Pas de tel utilisateur").
    /\be-?mail(?:[ -]?(?:address|account))? (?:(?:does|do) ?n[o']t |is not |not |no longer )exists?\b|\b(?:not|non|so) such (?:local )?(?:user|recipient|mailbox|account|address)\b|\bpas de tel(?:le)? (?:utilisateur|destinataire|bo[iî]te|compte|adresse)\b/,
    // The server takes no mail for that user or address (for a domain it is a relay refusal, read before).
    String.raw`(?:does ?n[o']t|do ?n[o']t|cannot|can ?not|can't|will not|won't) (?:handle|deliver|accept|receive|take) (?:any )?(?:e-?)?mail for (?:that |this |the )?(?:user|recipient|mailbox|account|address|<[^<>\s]+>|[^\s<>()]+@[^\s<>()]+)(?![^.;]{0,40}\b(?:from|because|due to|until|while)\b)`,
    // The same in other languages: unknown, does not exist, not found, no such user.
    /unbekannt|existiert nicht|nicht vorhanden|nicht gefunden|inconnu|n'existe pas|introuvable|non r[ée]pertori[ée]|desconocido|no existe|no se encuentra|no encontrad|sconosciut|inesistent|inexist[ae]nt|non esist|non trovat|nessun utente|no tiene (?:una )?cuenta|não tem (?:uma )?conta|desconhecid|inexistente|não existe|não encontrad|onbekend|bestaat niet|niet gevonden|nie ma takiego|nie istnieje|nieznan|nie znaleziono|neexistuje|neznám|nenalezen|bulunamad|mevcut değil|kullanıcı yok|okänd|存在しません|見つかりません|宛先不明|不存在|无此用户|找不到|未开通|не найден|не существует|нет такого|неизвестн|존재하지|찾을 수 없|없는 (?:사용자|계정|메일)|사용자가 없|수신자가 없|存在しない|查无此人|(?:收件人|地址|用户)无效|无效的?(?:收件人|地址|用户)|не існує|невідом|такого (?:пользователя|адреса|ящика|получателя|адресата) нет|brak takiego|ne obstaja|ne postoji|не съществува|не постои|не постоји|(?:користувач|отримувач|адресат|скриньк)[а-яіїєґ]*\s+не знайден|não (?:est[áa] )?cadastrad|nicht vergeben|該当(?:する)?(?:ユーザ|アドレス|宛先)|(?:ユーザー?|宛先|アドレス)(?:が|は)(?:いません|ありません)|ไม่พบ(?:ผู้ใช้|ผู้รับ|ที่อยู่|บัญชี)|そのような(?:ユーザ|アドレス|宛先)|[无無]此(?:用户|用戶|账号|帳號|帐号|邮箱|郵箱|收件人)|nicht bekannt|finns inte|findes ikke|finnes ikke|eksisterer ikke|ukendt|ukjent|tuntematon|ei ole olemassa|ei löydy|nem létezik|ismeretlen|nem található|nu există|necunoscut|δεν υπάρχει|άγνωστ|không tồn tại|tidak (?:ditemukan|dikenal|terdaftar)|לא קיים|לא נמצא|غير موجود/,
    // The account or mailbox deleted, in other languages.
    /(?:konto|postfach|compte|bo[iî]te|cuenta|buz[óo]n|casella|conta|аккаунт|ящик|учетная запись|帐号|账号|帳號|邮箱|郵箱|アカウント|メールボックス|계정|메일함)[^,.;:]{0,20}?(?:gel[öo]scht|supprim[ée]|eliminad[oa]|borrad[oa]|eliminat[oa]|cancellat[oa]|exclu[íi]d[oa]|удал[её]н|已(?:被)?删除|已被刪除|削除され|삭제(?:된|되었))/,
    // "<the recipient, address, user or mailbox> … invalid" and its reverse, in other languages.
    /(?:destinataire|utilisateur|destinatario|usuario|buz[óo]n|direcci[óo]n|utente|indirizzo|casella|destinat[áa]rio|usu[áa]rio|endere[çc]o|empf(?:ä|ae|a)nger|benutzer|postfach|adresse|ontvanger|gebruiker|postvak)\b[^.;]{0,30}?(?:invalide|no v[áa]lid|inv[áa]lid|non (?:valid|esist|presente)|ung[üu]ltig|ongeldig)|(?:ung[üu]ltiger?|ongeldige?) (?:empf[äa]nger|adresse|benutzer|postfach|e-?mail|ontvanger|adres|gebruiker)|\bkeine?n? (?:solche[rsn]? )?(?:benutzer|postfach|mailbox|empf[äa]nger)/,
  ]
    .map((part) => (typeof part === 'string' ? part : part.source))
    .join('|'),
  'i',
);
/**
 * The recipient's domain cannot take mail (said at RCPT, so of the address), or is reserved never to (RFC 2606,
 * RFC 6761): the address cannot receive, which is what "no such user" means to a verdict. Not a server that takes
 * no mail *from* someone: that is said of us.
 */
const NO_MAIL_DOMAIN_TEXT =
  /no such domain|no mx (?:record )?found|(?:host|domain|server)(?:\/domain)? does not accept mail(?!s? from)|domain is not reachable|mail receiving disabled|could not find a mail server|unknown mail server|host not found|domain \S+ (?:does not exist|no longer available)|^invalid domain\.?$|\breserved (?:by|in|per|under|for) (?:rfc ?\d+|documentation|testing|examples?)\b|(?:reserved|special[- ]use) (?:top[- ]level )?(?:domain|tld)\b|\b(?:domain|tld)(?: name)?(?: \S+)? (?:is )?reserved\b/i;
/**
 * A refusal by the recipient's own rules ("recipient policy", Postfix's check_recipient_access "Recipient
 * address rejected: Access denied", "user access denied", a recipient "prohibited", sendmail's access map answering
 * "<address>... Access denied" at RCPT): it names neither us nor the mailbox's existence, and another egress would be
 * refused alike.
 */
const RECIPIENT_POLICY_TEXT =
  /recipient (?:address rejected: access denied|polic(?:y|ies)\b|refuses)|\b(?:recipient|addressee|rcpt)(?: address)? (?:is )?(?:prohibited|forbidden|restricted|barred)\b(?! from)|(?:destinataire|empf(?:ä|ae)nger|destinatario|destinat[áa]rio)\b[^.;]{0,12}?(?:interdit|verboten|unzul(?:ä|ae)ssig|prohibido|vetado|vietato|proibito)|^<?x@x\.x>?(?:\.{3}|:)?\s+(?:access (?:denied|refused|forbidden)|zugriff verweigert|acc[èe]s (?:refus[ée]|interdit)|acceso denegado|accesso negato|acesso negado)\W*$|(?<!\byour )\b(?:user|recipient|mailbox|rcpt|addressee)\W{1,3}access (?:denied|deny|refused|forbidden)\b|(?:destinataire|empf[äa]nger|destinatario|utente|usuario)\W{1,3}(?:acc[èe]s (?:refus|interdit)|zugriff verweigert|acceso denegado|accesso negato)|(?:user|domain|recipient)s? (?:or domain )?(?:that )?you (?:are sending|sent|tried to send) to\b[^.]{0,40}\bpolic|polic(?:y|ies) of the recipient|recipient's (?:polic|settings)|\b(?:user|recipient)(?:'s)? (?:rules?|preferences|filters?)\b|polic(?:y|ies) rejection on the (?:target|recipient|destination)/i;
/**
 * The server routes the mail back to itself (Postfix's "mail for example.org loops back to myself", quoted after
 * "undeliverable address:" with its default 5.1.1): its own misconfiguration, which says nothing of the mailbox.
 */
const MAIL_LOOP_TEXT = /loops? back to (?:myself|itself)|(?:mail|routing) loop/i;
/**
 * Our own command refused as malformed or out of order (a client's bug, not a block of us nor word of the mailbox):
 * "send HELO/EHLO first", "need MAIL command", "bad sequence of commands", a command unrecognized or unknown (in any
 * language), a syntax error said alone ("Error: bad syntax"; said of an address it is that address's), a command given
 * twice or a reset demanded, commands pipelined out of turn, an argument the server could not parse.
 */
const PROTOCOL_ERROR_TEXT =
  /bad sequence of commands|out of sequence|(?:send|need|expecting|say) (?:helo|ehlo|hello)\b[^.]{0,10}?\bfirst|\b(?:need|nested) (?:mail|rcpt)\b(?: from| to)?(?: command| first| before)\b|^(?:mail|rcpt) first\b|\b(?:mail|rcpt) command must precede|sender not yet given|(?<!(?:valid|qualified|proper|correct|legal|acceptable|fqdn|real) )\b(?:helo|ehlo)(?:\/(?:helo|ehlo))? (?:command )?(?:is )?(?:needed|required|expected|missing)\b|\bmust (?:send|say|issue|give) (?:helo|ehlo)\b|\b(?:helo|ehlo|mail(?: from)?|rcpt(?: to)?)(?:\/(?:helo|ehlo))?\b[^.]{0,25}?\bfirst,? please\b|\b(?:sender|recipient|helo|ehlo|mail(?: from)?) (?:is )?already (?:given|specified|said|sent|issued)\b|\balready (?:said|sent|given|issued) (?:helo|ehlo|mail|rcpt)\b|\bissue an? (?:reset|rset)\b|synchroni[sz]ation error|improper use of (?:smtp )?command pipelining|(?:could ?n[o']t|cannot|can't|unable to) (?:parse|normali[sz]e|decode) (?:the )?(?:recipient|sender|address|argument|parameter)|(?:command|verb) (?:not recogni[sz]ed|unrecogni[sz]ed|not implemented|not understood|unknown|invalid)|(?:unrecogni[sz]ed|unknown|invalid|illegal|unsupported) (?:smtp )?(?:command|verb)\b|commande (?:inconnue|invalide|non reconnue)|unbekannte[rs]? befehl|befehl (?:unbekannt|nicht erkannt)|comando (?:desconocido|no reconocido|sconosciuto|non riconosciuto|desconhecido|não reconhecido|inv[áa]lido|non valido)|неизвестная команда|未知(?:的)?命令|不明なコマンド|알 수 없는 명령|^unimplemented\b|(?<!\b(?:address|mailbox|sender|recipient|domain)(?:'s)? )(?:\bsyntax error|\b(?:bad|invalid|wrong|incorrect) (?:command )?syntax|erreur de syntaxe|syntaxfehler|error de sintaxis|errore di sintassi|синтаксическ\w* ошибк|ошибка синтаксиса|语法错误|構文エラー|구문 오류)(?![^.]{0,40}(?:address|mailbox|domain|地址|邮箱))/i;
/**
 * An SMTP extension or parameter of ours the server lacks or has switched off, and internationalised addresses it
 * cannot take (SMTPUTF8 required, IDNA conversion failed): the session's capability, neither us nor the mailbox.
 */
const EXTENSION_TEXT =
  /\b(?:smtputf8|utf-?8|dsn|requiretls|8bitmime|binarymime|chunking|bdat|pipelining|extension|parameter)\b[^.]{0,20}?\b(?:is |has been )?(?:disabled|not (?:implemented|supported|enabled|available|offered))\b|\b(?:smtputf8|utf-?8) (?:is )?required\b|\bnon-ascii (?:addresses|senders|recipients|characters|mailboxes)\b|\bidna\b|\bpunycode\b/i;
/** The message's size over the server's limit (not the mailbox's): said at any stage, it refuses the message. */
const MESSAGE_SIZE_TEXT =
  /\bmessage (?:size )?(?:is )?too (?:big|large)|\bmessage size (?:exceeds|exceeded|limit exceeded|too)\b|\bmax(?:imum)? (?:message )?size (?:exceeded|reached)|exceeds? (?:the |fixed )?(?:maximum )?message size/i;
/** A limit counted by a policy service ("Quota exceeded" under X.7.x) with no word of the mailbox's storage. */
const POLICY_QUOTA_TEXT =
  /^(?!.*\b(?:mail ?box|disk|storage|maildir|inbox|full|space|queue|user|account|over)\b).*\bquota\b/i;
/** A host that takes no mail at all (RFC 7504's 521 greeting): no address there can receive. */
const HOST_TAKES_NO_MAIL_TEXT =
  /\b(?:host|domain|server|machine|system|site)(?:\/domain)? (?:does not|doesn't|will not|won't) accept (?:e-?)?mail\b(?! from)/i;
/**
 * A reply at RCPT that says no more than no: RFC 5321's 551 "user not local", a bare "rejected", also after the
 * recipient quoted as sendmail and Postfix do ("<a@b>... Service unavailable").
 */
const TERSE_REFUSAL_TEXT =
  /^(?:<?x@x\.x>?(?:\.{3}|:)?\s+)?(?:(?:user not local|not our user)\b.*|rejected|refused|service (?:unavailable|not available))[.!]?$/i;

/**
 * Delivery to the recipient said impossible and nothing more ("Unable to deliver to <a@b>", "Zustellung an diesen
 * Empfänger nicht möglich"): no reason is given, so it is neither the mailbox's absence nor, even under 5.7.x, us.
 */
const UNDELIVERABLE_TO_RECIPIENT_TEXT =
  /^(?:(?:unable to|cannot|can ?not|can't|could ?n[o']t) deliver (?:(?:the |this |your )?(?:message|mail|e-?mail) )?to(?: (?:this|the|that) (?:recipient|address|mailbox|user))?|delivery (?:to|for) (?:this|the|that) (?:recipient|address|mailbox|user) (?:is )?(?:not possible|impossible|failed)|zustellung an (?:diesen|den) empf(?:ä|ae|a)nger (?:ist )?nicht m(?:ö|oe|o)glich|impossible de (?:livrer|distribuer|remettre) (?:le |ce )?(?:message |courriel )?(?:à|au) (?:ce |le )?destinataire|no (?:es posible|se puede|se pudo) entregar (?:el mensaje )?(?:a|al) (?:este |el )?destinatario|impossibile (?:consegnare|recapitare) (?:il messaggio )?(?:a questo|al) destinatario|n[ãa]o (?:[ée] poss[íi]vel|foi poss[íi]vel) entregar (?:a mensagem )?(?:a|ao) (?:este |o )?destinat[áa]rio|невозможно доставить (?:сообщение )?(?:этому )?получателю|无法投递(?:到|给)?(?:该)?收件人)(?:\s*<?x@x\.x>?)?[\s.!]*$/i;

/**
 * An account closed for its holder's abuse or a breach of the provider's terms (the recipient's, not "your" account),
 * in several languages: the words of policy say why the mailbox was closed, not that we are blocked.
 */
const CLOSED_FOR_ABUSE_TEXT =
  /(?<!\b(?:your|sender(?:'s)?|sending) )\b(?:account|mailbox|user)(?:\s+<?x@x\.x>?)?\s+(?:has been |was |is |got )?(?:temporarily |permanently |administratively )?(?:locked|suspended|disabled|deactivated|closed|terminated|blocked) (?:for|due to|because of|owing to) (?:\w+ ){0,2}?(?:abuse|(?:polic(?:y|ies)|terms(?: of (?:service|use))?|tos|aup) violations?|violations? of (?:our |the )?(?:polic(?:y|ies)|terms)|spamming|fraud)\b|(?:konto|postfach)\b[^.;:]{0,30}?\bwegen (?:missbrauch|versto|spam)\w*[^.;:]{0,30}?\b(?:gesperrt|deaktiviert)|(?:compte|bo[iî]te)\b[^.;:]{0,30}?(?:bloqu|suspendu|d[ée]sactiv)\w* pour (?:abus|violation)|(?:cuenta|buz[óo]n)\b[^.;:]{0,30}?(?:bloquead|suspendid|desactivad)[oa] por (?:abuso|violaci[óo]n)/i;

/** A refusal that names a reason other than the mailbox beside it ("mailbox unavailable or access denied"): undecided. */
const HEDGED_TEXT =
  /\bor (?:access|permission) deni(?:n)?ed|\bor (?:you are |you're |sender )?(?:blocked|not (?:allowed|permitted|authori[sz]ed))|\bsender or (?:the )?recipients?\b|\bmay not exist, they may be blacklisted\b|\b(?:o accesso negato|ou acc[èe]s refus[ée]|oder zugriff verweigert|o acceso denegado)|\brecipients? or (?:the )?sender\b|\bnot found,? (?:or )?no access\b|\bno access,? or\b/i;

/**
 * Words that say "not this mailbox" only when nothing else is said (a 5.7.x code or words about us come first):
 * not of our own account or address ("sender account unavailable", "return address rejected"), and not when a
 * reason follows that no rule before read as the mailbox's ("recipient rejected: message size exceeds limit").
 */
const WEAK_NO_SUCH_USER_TEXT =
  /(?<!\b(?:your|sender(?:'s)?|return|reply(?:-to)?|from|ip) )(?:mail ?box|recipient|account) (?:\S+@\S+ )?(?:is |currently )?(?:unavailable|unavaiable|not available|not found|invalid)(?!\s*\((?:[a-z'-]+ )+[a-z'-]+\))|(?<!\b(?:your|sender(?:'s)?|return|reply(?:-to)?|from|ip|connect)[ :-]+)(?:e-?mail |mail )?address\W{1,3}(?:<?x@x\.x>?\W{1,3})?(?:is |currently )?(?:unavailable|not available)(?: here)?\b(?!\s*(?:from|to|for)\b)|(?:postfach|casella|casilla|buz[óo]n|bo[iî]te|caixa(?: postal)?|skrzynka|ящик|(?<![\w-])(?:e-?mail-?)?adresse|direcci[óo]n|indirizzo|endere[çc]o|адрес)\b[^.]{0,20}(?:nicht verf[üu]gbar|non disponibile|no disponible|indisponible|indispon[íi]vel|não (?:est[áa] )?dispon[íi]vel|niedost[ęe]pn|недоступ)|(?:recipient )?mailbox (?:name )?(?:is )?not allowed|(?<!\b(?:your|sender(?:'s)?|return|reply(?:-to)?|from|ip) )(?:address|recipient) rejected(?!:\s*\w)|"rcpt to" mailbox unavailable|does not exist|doesn't exist/i;

/**
 * The message itself refused or not authorised, with no word of the mailbox before it ("Message not allowed",
 * "Delivery not authorized, message refused"): at end of DATA, after the recipient was taken, it is refused for
 * what we sent.
 */
const MESSAGE_REFUSED_TEXT =
  /\b(?:message|mail|e-?mail|delivery)\b(?: (?:id )?[<[(]?[\w.@-]*\d[\w.@-]*[>\])]?)? (?:is |was |has been )?(?:not (?:allowed|accepted|authori[sz]ed|permitted)|refused|rejected|denied|blocked)\b|message refus[ée]|nachricht (?:wurde )?(?:abgelehnt|zur[üu]ckgewiesen)|mensaje (?:fue )?rechazado|messaggio (?:è stato )?rifiutato|mensagem (?:foi )?(?:rejeitada|recusada)|bericht (?:is )?(?:geweigerd|afgewezen)|сообщение отклонено|邮件被拒|メッセージ(?:は|が)拒否/i;

/** The account said to be locked or blocked: the mailbox's, not ours ("your account" is ours). */
const LOCKED_ACCOUNT = String.raw`(?<!your )(?:account|mailbox|compte|cuenta|conta|konto|casella|postfach|учетная запись|аккаунт|ящик|帐号|账号|帳號)(?!\w)[^,;:]{0,40}?(?:locked|\bblocked|bloqu|gesperrt|bloccat|zablokow|geblokkeerd|заблокирован|冻结|凍結|停止)|\buser (?:\S+ temporar(?:il)?y |(?:status |account )?is )locked`;
const DISABLED_TEXT = new RegExp(
  String.raw`${LOCKED_ACCOUNT}|\bsuspend the service|停止されて|` +
    /disabled|deactivated|inactiv|suspended|terminated|(?:account|mailbox) (?:has been |was |is )?closed|\b(?<!your )(?:user|account|mailbox|recipient|alias|(?:distribution |mailing )?list|group|forward(?:er|ing address)?) (?:is )?(?:not|no longer) active\b|\b(?:route|mailbox|account|user|recipient|alias|inbox)\b[^.,;:]{0,20}?\bdoes ?n[o']t accept (?:any )?(?:incoming |inbound )?(?:e-?mails?|mails?|messages)(?=\s*(?:[.,;!)]|$))|\b(?<!your )(?:user|account|mailbox) (?:is |has )?not (?:yet |been )?activated\b|(?<!your )(?:account|mailbox)(?!\w)[^.,;]{0,20}\bexpired|(?<!your )(?:casilla|buz[óo]n|cuenta|caixa(?: postal)?|conta|casella|bo[iî]te|compte|postfach|konto)(?!\w)[^.,;]{0,25}?(?:expir|caducad|vencid|scadut|abgelaufen|verfallen)|\b(?:for|due to|because of|owing to) (?:lack of use|non-?use|disuse)\b|por falta de uso|per mancato utilizzo|faute d'utilisation|wegen nichtnutzung|no longer (?:active|available|(?<!\baddress (?:is )?(?:wrong or )?no longer )valid|in use|accepts? (?:e-?)?mail)|(?<!your )\b(?:account|mailbox|user|recipient|addressee)\b[^.,;]{0,20}?(?:\bnot|n't) (?:allowed|permitted|authori[sz]ed|enabled) to receive (?:any )?(?:e-?mails?|mails?|messages)(?=\s*(?:[.,;!)]|$))|\b(?:prohibited|barred|forbidden) from receiving (?:any )?(?:e-?mails?|mails?|messages)(?=\s*(?:[.,;!)]|$))|n'est pas autoris[ée]e? à recevoir (?:de |des )?(?:courriels|e-?mails|messages|mails)(?=\s*(?:[.,;!)]|$))|no (?:est[áa] )?(?:autorizad|habilitad|permitid)[oa] (?:para|a) recibir (?:correos?|mensajes|e-?mails)(?=\s*(?:[.,;!)]|$))|non (?:è )?(?:autorizzat|abilitat)[oa] (?:a ricevere|alla ricezione di) (?:posta|messaggi|e-?mail)(?=\s*(?:[.,;!)]|$))|不允许收信|禁止收信|收信功能(?:已)?(?:被)?(?:关闭|禁止|禁用|停用)|mailbox is frozen|archived recipient|(?<!\b(?:your|sender(?:'s)?) )\b(?:unverified|unconfirmed) (?:mail ?box|account|recipient)\b|\b(?<!(?:your|sender(?:'s)?) )(?:mail ?box|account) (?:is |has )?not (?:yet |been )?(?:verified|confirmed)\b|(?:postfach|konto)[^.,;]{0,20}?nicht (?:bestätigt|verifiziert)|(?:bo[iî]te|compte)[^.,;]{0,20}?non (?:v[ée]rifi[ée]e?|confirm[ée]e?)|(?:buz[óo]n|cuenta)[^.,;]{0,20}?no (?:verificad|confirmad)[oa]|(?:casella|account)[^.,;]{0,20}?non (?:verificat|confermat)[oa]|destinataire archiv|deaktiviert|gesperrt|d[ée]sactiv[ée]|suspendu|deshabilitad|suspendid|disattivat|disabilitat|sospes[oa]|desativad|inaktiv|deaktivert|gedeactiveerd|停用|禁用|已注销|휴면|비활성|정지된|отключен|неактивн|деактивирован|nieaktywn|zawieszon|letiltva|felfüggeszt|pozastaven|почтовый ящик заблокирован/
      .source,
  'i',
);
/**
 * "Unknown or disabled": the server does not say which, and the broader reading is that no such mailbox
 * takes mail ("User not found or not active", "Adressat unbekannt oder Mailbox deaktiviert").
 */
const UNKNOWN_OR_DISABLED_TEXT =
  /(?:unknown|not found|does not exist|inconnue?|unbekannt|desconocido|sconosciuto|no existe|nicht gefunden|introuvable)\s+(?:or|oder|ou|o)\s+(?:\S+\s+){0,4}?(?:disabled|deactivated|inactiv|not active|deaktiviert|d[ée]sactiv|desactivad|disattivat)/i;
/**
 * Words of a disabled mailbox said of something else: a protocol feature or service of the server
 * ("Relay disabled", "VRFY disabled"), our own account ("your account has been suspended"), or a
 * mailbox closed only to some senders or kinds of mail ("disabled for external senders", "not enabled to
 * receive uncertified mail" of an Italian PEC mailbox: it exists), whatever else is said beside it.
 */
const SERVICE_OFF_TEXT =
  /\bnot (?:enabled|allowed|permitted|authori[sz]ed|configured) to (?:receive|accept) (?:\S+ ){0,3}?(?:e-?mails?|mails?|messages?) from\b|\b(?:non-?|un)certified (?:e-?)?(?:mails?|messages?)\b|(?:posta|messaggi|e-?mail) non certificat|(?:courrier|courriel|message)s? non certifi|nicht zertifizierte (?:e-?mails?|nachrichten|post)|\b(?:disabled|deactivated|suspended|restricted|closed)\s+(?:for|to)\s+(?:all\s+)?(?:external|outside|internet|non-?local|internal|unauthenticated|anonymous)\b|\bonly (?:accepts? )?(?:(?:e-?)?mail |messages )?(?:from )?(?:internal|authenticated|authori[sz]ed) (?:senders|users|mail)\b|\byour (?:account|access)\b[^.]{0,40}\b(?:disabled|suspended|deactivated|terminated|closed)|\b(?:vrfy|expn|etrn|command|relay(?:ing)?|pipelining|chunking|auth(?:entication)?|starttls|tls|feature)\s+(?:is\s+|has been\s+)?(?:disabled|deactivated|suspended)/i;
const FULL_TEXT =
  /over ?quota|exceed(?:s|ing)? (?:its |the |their |his |her )?quota|(?<!\b(?:queue|sending|submission|send|message|policy|rate|daily|hourly) )\bquota (?:error|problem|issue|failure|full|reached|exhausted)\b|quotafehler|erreur de quota|errore (?:di |della )?quota|(?<!queue )quota ?exceed(?:ed)?(?:exception)?\b|exceeded (?:his |her |its |the )?quota|quota violation|(?:disk|maildir|mailbox) quota|full mailbox|mail ?folder is full|exceeds? (?:the )?(?:maximum )?allowed (?:size|storage)|would exceed (?:the )?maximum|space has been used up|not enough (?:storage )?space|exceeded (?:its|the) (?:storage|quota)|exceeded storage allocation|(?:mailbox|storage) (?:for user )?(?:is )?full|\b(?:mail ?box|inbox|mail ?folder)\s+(?:(?:of|for) (?:the )?(?:user |recipient |account )?)?(?:<[^<>\s]+>|[^\s<>]+)\s+(?:is|was|has become|became) (?:now |currently |already |completely )?full\b|\b(?:does ?n[o']t|do not|did not) have (?:enough|sufficient) (?:storage |disk |mailbox )?(?:space|storage|room)\b|hat nicht (?:genug|gen[üu]gend|ausreichend) (?:speicher)?platz|n'a pas (?:assez|suffisamment) d'espace|no tiene (?:suficiente|bastante) espacio|non ha (?:abbastanza|sufficiente) spazio|n[ãa]o tem espa[çc]o suficiente|mailbox size|mailbox has exceeded|inbox is out of storage|insufficient (?:storage|space)|out of storage|storage space|storage (?:quota|limit)|too much mail data|blocks limit exceeded|\b(?:mail ?box|inbox|storage|disk|space) (?:size |storage |space )?limit (?:has been |was |is )?(?:exc?eeded|reached)|exc?eeded (?:the |its |his |her )?(?:mail ?box|inbox|storage) (?:size )?limit|\bvoll\b|speicher|pleine|quota d[ée]pass|lleno|cuota|piena|esaurit|cheia|\bcota\b|容量|いっぱい|переполнен|квот|空间不足|已满|\bvol\b|pełn|przepełnion|pln[áa](?!\w)|\bdolu\b|용량 ?(?:이 )?초과|가득|täynnä|megtelt|\bkvot|kiintiö|\bpenuh\b/i;
const GREYLIST_TEXT =
  /grey ?list|gray ?list|grau ?list|liste grise|lista gris|lista grigia|lista cinza|grijze lijst|серый список|灰名单|グレ[イー]リスト|그레이리스트|try again later|please retry|retry later|temporarily (?:rejected|deferred|unavailable)|\b(?:this )?(?:mail|message|e-?mail) (?:is |has been )?temporarily (?:denied|refused)|come back later|deferred|not yet authorized/i;
/**
 * A Postfix-style check of our host, HELO or sender ("Client host rejected: …", "Sender is not authorized") that says
 * no more than to come back later, in any language: a deferral that names no reason, not a block of us.
 */
const BARE_DEFERRAL_OF_US_TEXT =
  /(?:\b(?:client host|client|helo command|sender(?: address)?|host)\s+(?:is\s+)?(?:rejected|not (?:yet )?(?:authori[sz]ed|allowed|accepted|permitted))|\b(?:absender|exp[ée]diteur|remitente|mittente|remetente)\s+(?:ist\s+|est\s+)?(?:nicht (?:autorisiert|zugelassen|erlaubt)|non autoris[ée]|no autorizado|non autorizzato|n[ãa]o autorizado|abgelehnt|refus[ée]|rechazado|rifiutato|recusado))\W{1,3}(?:please )?(?:try (?:again )?later|retry later|try again|come back later|bitte sp(?:ä|ae)ter (?:erneut |nochmal |noch einmal )?versuchen|(?:veuillez )?r[ée]essay(?:ez|er) plus tard|int[ée]ntelo (?:de nuevo )?m[áa]s tarde|riprova(?:re)? pi[ùu] tardi|请稍后(?:再)?(?:重试|再试|尝试))\W*$/i;
/** Temporary trouble on the server's side, not a request to come back. */
const SERVER_TROUBLE_TEXT =
  /\b(?:(?:ldap|database|sql|mysql|db)\b(?: (?:server|service|agent|backend|lookup|connection|query))?|(?:directory|verification|lookup|authentication|user|dns) (?:server|service|agent|backend|database))\b[^.;]{0,25}?\b(?:(?:is )?(?:temporar(?:il)?y )?(?:unavailable|not available|not responding|unreachable|down)|(?:connection |lookup |query )?(?:failed|failure|error|timed? ?out))\b|(?:datenbank|ldap-server)[^.]{0,20}(?:nicht erreichbar|fehler)|base de donn[ée]es (?:indisponible|inaccessible)|base de datos (?:no disponible|inaccesible)|数据库(?:错误|不可用|故障)|база данных недоступна|too much load|\b(?:system|server)(?:\(\w\))? (?:is )?(?:too )?busy|\bcongest|internal (?:(?:server|system|processing) )?(?:error|resource)|disk space|system resources|resource constraints|lookup failure|configuration problem|local problem|(?:service|system|recipient) temporar(?:il)?y unavailable|\bhigh load\b|load (?:is )?too high|\boverload(?:ed)?\b|system (?:failure|error)|temporarily unable to process|system problem|resources? (?:are |is )?temporarily unavailable|\bno mdb\b|temporary (?:server |system |local )?(?:failure|error|problem)|queue quota|serveur (?:est )?(?:occup|surcharg)|server (?:ist )?(?:überlastet|ausgelastet)|servidor (?:está |esta )?(?:ocupado|saturado|sobrecargad)|server (?:è )?(?:occupato|sovraccaric)|сервер (?:перегружен|занят)|(?:服务器|系统)繁忙|混雑/i;
const TOO_MANY_RCPT_TEXT =
  /too (?:many|much) recipients?\b|\brecipients?(?: (?:pool|list|slots?|table|buffer))? (?:is |are |has |have )?(?:maxed out|exhausted|full)\b|trop de destinataires|zu viele empf[äa]nger|demasiados destinatarios|troppi destinatari|muitos destinat[áa]rios|слишком много получателей|收件人(?:过多|太多)|受信者が多すぎ|allow(?:ed)? rcpt numbers|recipients belong to multiple regions|too many rcpt|reciplimit|(?:number|total|count) of (?:rcpt|recipient)s?\b[^.;]{0,30}?\b(?:max(?:imum)?|limit|threshold)\b|max(?:imum)? (?:number of )?(?:rcpt|recipient)s? (?:\w+ )?(?:reached|exceeded)|exceeded (?:the )?max(?:imum)? (?:number of )?(?:rcpt|recipient)s\b|nombre (?:maximum|maximal) de destinataires|(?:höchst|maximal)zahl (?:an |von )?empf[äa]ngern?|n[úu]mero m[áa]ximo de destinatarios|收件人(?:数|數)(?:量)?(?:超过|超出|已达)|群发(?:的)?(?:数量|人数)[^，。]{0,4}(?:超过|超出)/i;
/**
 * A cap on one message or transaction (recipients per message, one destination domain per transaction): said in
 * a rate's words ("limit reached"), it is lifted by a session of its own, unlike a limit per hour or per sender.
 */
const PER_MESSAGE_RCPT_TEXT =
  /recipients? (?:per|in (?:a|this|one)) (?:message|transaction|session|envelope)|\bper[- ](?:message|transaction|envelope|session) recipients? (?:limit|cap|maximum)|empf(?:ä|ae)nger(?:limit|grenze) (?:pro|je) (?:nachricht|e-?mail)|limite de destinataires par (?:message|courriel)|l[íi]mite de destinatarios por (?:mensaje|correo)|(?:multiple|different|several) (?:destination|recipient) domains|(?:当前连接|每次连接|本次连接|每封(?:邮件|信件?)?|单封(?:邮件|信件?)?|群发)[^，。]{0,8}收件人/i;
const MAILBOX_RATE_TEXT =
  /receiving (?:e?mail|mail) (?:at (?:a|too high a) rate|too quickly)|rate that prevents|received too much e?mail|слишком быстро|troppo rapidamente|demasiado rápido/i;
/** The recipient said to receive mail too fast, with no enhanced code (Gmail's words relayed), in several languages. */
const RECIPIENT_RECEIVING_RATE_TEXT =
  /\b(?:user|recipient|mailbox|account|addressee)\b[^.;]{0,40}?\b(?:is |are )?receiving (?:e-?mails?|mails?|messages) (?:at (?:a|too high a|an? (?:excessive|high)) rate|too (?:quickly|fast))|(?:destinataire|bo[iî]te)\b[^.;]{0,30}?re[çc]oit (?:des |trop de )?(?:messages|courriels|e-?mails)\b[^.;]{0,20}?trop (?:vite|rapidement)|empf(?:ä|ae)nger\b[^.;]{0,30}?(?:erh(?:ä|ae)lt|empf(?:ä|ae)ngt) (?:e-?mails|nachrichten) zu schnell|destinatario\b[^.;]{0,30}?(?:recibe|riceve) (?:correos|mensajes|messaggi|e-?mail) (?:demasiado|troppo) (?:r[áa]pido|rapidamente|velocemente)/i;
const TLS_TEXT =
  /starttls|tls required|encryption (?:required|needed)|does not support tls|tls is required|requires? (?:encryption|tls)|\btls\b[^;:]{0,30}\b(?:required|not supported|not available|unavailable)|(?:not using|(?:was not|wasn't) sent over|without) an? tls connection|\bonly (?:on|over|via|with|through|using) (?:an? )?(?:tls|ssl|encrypted|secure)(?: (?:network )?connections?)?\b|transport layer security (?:is )?required|\b(?:enable|use) (?:ssl or tls|tls or ssl|ssl\/tls|tls\/ssl)\b|\bsecure (?:network )?connection (?:is )?required|tls (?:ist )?erforderlich|nur (?:über|mit) (?:tls|ssl|verschl(?:ü|ue)sselte[rn]? verbindung)|tls (?:est )?(?:requis|obligatoire)|uniquement (?:en|via|sur une connexion) (?:tls|ssl|chiffr[ée]e)|(?:se )?requiere tls|tls (?:es )?obligatorio|solo (?:con|mediante|a trav[ée]s de) (?:tls|ssl|conexi[óo]n cifrada)|tls (?:è )?(?:obbligatorio|richiesto)/i;

/** STARTTLS given out of place (not offered, or TLS already on): our command's error, not TLS demanded. */
const STARTTLS_MISUSE_TEXT =
  /\b(?:starttls|tls)\b(?: command)? (?:used|issued|sent|given) when not (?:advertised|offered|available)|\b(?:starttls|tls) (?:is )?(?:not (?:advertised|offered)|already (?:active|started|negotiated|in use))\b|\btls (?:ist )?bereits aktiv|\btls (?:est )?d[ée]j[àa] actif|\btls ya (?:est[áa] )?activo/i;

const EVERY_STAGE: SmtpStage[] = ['banner', 'ehlo', 'mail', 'rcpt', 'data'];
/** Replies that can speak of the mailbox: to RCPT, and to DATA for a recipient refused only then. */
const MAILBOX_STAGES: SmtpStage[] = ['rcpt', 'data'];

/** Ordered: the first rule that matches decides. */
const RULES: Rule[] = [
  // Office 365 directory-based edge blocking: "550 5.4.1 Recipient address rejected: Access denied" (the recipient is
  // not in the tenant's directory). Only in those words: another reason after "rejected:" (of us, of later) decides.
  {
    class: 'no_such_user',
    codes: [5],
    enhanced: ['5.4.1'],
    text: /recipient address(?:es)? rejected\W{1,3}access denied\b(?!\s*,)/i,
  },
  // Exchange Online's invalid (5.7.504) or banned (5.7.505) recipient: the words "access denied" are said of it.
  {
    class: 'disabled',
    codes: [5],
    enhanced: ['5.7.504', '5.7.505'],
    text: /recipient address rejected|banned recipient/i,
  },
  { class: 'unclassified', codes: [5], text: STARTTLS_MISUSE_TEXT, stages: EVERY_STAGE },
  { class: 'tls_required', codes: [4, 5], enhanced: ['5.7.10', '5.7.11'], stages: ['ehlo', 'mail', 'rcpt'] },
  // Said at end of DATA too: the message is refused for want of TLS, not for its content.
  { class: 'tls_required', codes: [4, 5], text: TLS_TEXT, stages: ['ehlo', 'mail', 'rcpt', 'data'] },
  { class: 'mailbox_exists', codes: [4, 5], enhanced: ['4.2.1', '5.2.1'], text: MAILBOX_RATE_TEXT },
  // Without the code, only a permanent refusal says so: a 4xx in these words is a deferral like any other.
  { class: 'mailbox_exists', codes: [5], text: RECIPIENT_RECEIVING_RATE_TEXT },
  // "Not local or invalid address – relay denied": the server does not say which, so the words of relaying decide nothing.
  { class: 'unclassified', codes: [5], text: /\bnot local or (?:an? )?(?:invalid|unknown|non-?existent)\b/i },
  { class: 'relay_denied', codes: [4, 5], enhanced: ['5.7.54', '5.7.64'], stages: ['mail', 'rcpt'] },
  { class: 'relay_denied', codes: [4, 5], text: RELAY_TEXT, stages: ['mail', 'rcpt'] },
  { class: 'too_many_recipients', codes: [4, 5], text: PER_MESSAGE_RCPT_TEXT },
  // A mailbox holding too many messages is full, before "too many messages" reads as our sending rate.
  { class: 'full', codes: [4, 5], text: TOO_MANY_STORED_TEXT },
  // Limits on our sending outrank what else is said of us or of recipients: come back later, in no other session.
  { class: 'rate_limited', codes: [4, 5], text: SENDING_LIMIT_TEXT, stages: EVERY_STAGE },
  // A server that says it greylists says why it defers, whatever else it notes of us (no rDNS).
  { class: 'greylisted', codes: [4], text: /\b(?:grey|gray)list(?:ed|ing)\b/i, stages: ['mail', 'rcpt'] },
  { class: 'relay_denied', codes: [4, 5], text: AUTH_FIRST_TEXT, stages: ['mail', 'rcpt'] },
  // A command of ours refused as malformed or out of order, before the "HELO" in it reads as a block of our host.
  // The recipient's address malformed is no mailbox, before the words of a syntax error read as our command's.
  { class: 'no_such_user', codes: [5], text: BAD_RECIPIENT_ADDRESS_TEXT, stages: ['rcpt'] },
  { class: 'unclassified', codes: [5], text: PROTOCOL_ERROR_TEXT, stages: EVERY_STAGE },
  // Said of an address ("Syntax error in sender address") it is that address's, not the command's.
  {
    class: 'unclassified',
    codes: [5],
    enhanced: ['5.5.*'],
    text: /\bsyntax error\b(?! (?:in|of|for) (?:the )?(?:sender|mail from|return|envelope from|recipient|destination)\b)/i,
    stages: EVERY_STAGE,
  },
  // Under a protocol code (X.5.x, Postfix's "5.5.1 Error: no valid recipients", the bare 503 "bad sequence of
  // commands") or a policy code (X.7.x: "Message rejected (no valid recipients)") it is DATA refused for want of an
  // accepted RCPT, which says nothing of why the recipients were refused.
  { class: 'unclassified', codes: [5], enhanced: ['5.5.*', '5.7.*'], text: NO_VALID_RECIPIENTS_TEXT },
  { class: 'unclassified', codes: [5], replyCodes: [503], text: NO_VALID_RECIPIENTS_TEXT },
  { class: 'unclassified', codes: [5], text: EXTENSION_TEXT, stages: EVERY_STAGE },
  // A check of our host or sender that gives no reason but "later" defers us; it names no block (greylisting
  // said in its words came before, a request to send slower is a rate).
  { class: 'temporary', codes: [4], text: BARE_DEFERRAL_OF_US_TEXT, stages: EVERY_STAGE },
  // A recipient's account closed for abuse or a policy breach, before those words read as a block of us.
  { class: 'disabled', codes: [5], text: CLOSED_FOR_ABUSE_TEXT },
  // Words about us outrank words about the mailbox, whatever the code.
  { class: 'sender_blocked', codes: [4, 5], text: ABOUT_US_TEXT, stages: EVERY_STAGE },
  // A sending service refusing an address or domain of ours it has not verified (Amazon SES): said of the sender there.
  {
    class: 'sender_blocked',
    codes: [5],
    text: /\b(?:address|domain) (?:is |was )?not verified\b/i,
    stages: ['mail', 'data'],
  },
  { class: 'rate_limited', codes: [4, 5], text: RATE_TEXT, stages: EVERY_STAGE },
  { class: 'sender_blocked', codes: [4, 5], text: OUR_IP_TEXT, stages: EVERY_STAGE },
  { class: 'sender_blocked', codes: [4, 5], text: VENDOR_SENDER_TAG, stages: EVERY_STAGE },
  // Authentication demanded outranks a sender-address code beside it ("5.1.8 You must log in to send mail").
  { class: 'relay_denied', codes: [4, 5], text: AUTH_TEXT, stages: ['mail', 'rcpt'] },
  // A login of ours that failed is a refusal of us (authentication asked for, read just before, is a relay's).
  { class: 'sender_blocked', codes: [5], text: AUTH_FAILED_TEXT, stages: EVERY_STAGE },
  // Bad sender address (RFC 3463 X.1.7, X.1.8) or our authentication and rDNS failing (RFC 7372 X.7.24-26),
  // whatever the text says of "unknown" or of a lookup.
  {
    class: 'sender_blocked',
    codes: [4, 5],
    enhanced: ['4.1.7', '4.1.8', '5.1.7', '5.1.8', '4.7.24', '4.7.25', '4.7.26', '5.7.24', '5.7.25', '5.7.26'],
    stages: EVERY_STAGE,
  },
  { class: 'too_many_recipients', codes: [4, 5], enhanced: ['4.5.3', '5.5.3'] },
  { class: 'too_many_recipients', codes: [4, 5], text: TOO_MANY_RCPT_TEXT },
  // The message too big for the server, at whatever stage it is said (SIZE= at MAIL), is not the mailbox's quota.
  { class: 'unclassified', codes: [5], text: MESSAGE_SIZE_TEXT, stages: EVERY_STAGE },
  // A policy service's quota (a security code, no word of storage) counts messages over time, as a throttle does.
  { class: 'rate_limited', codes: [4, 5], enhanced: ['4.7.*', '5.7.*'], text: POLICY_QUOTA_TEXT, stages: EVERY_STAGE },
  { class: 'full', codes: [4, 5], text: FULL_TEXT },
  // A quota code beside words that the address does not exist ("552 5.2.2 … Address does not exist") is the words'.
  { class: 'no_such_user', codes: [5], enhanced: ['5.2.2'], text: NO_SUCH_USER_TEXT },
  { class: 'full', codes: [4, 5], enhanced: ['4.2.2', '5.2.2'] },
  { class: 'unclassified', codes: [5], text: HEDGED_TEXT },
  // A restriction on who may write to the address outranks an address code beside it ("5.1.1 you are not allowed to
  // send mail to").
  { class: 'unclassified', codes: [5], text: NOT_ALLOWED_TO_SEND_TO_TEXT },
  // What the text says of the mailbox outranks a code that says otherwise ("550 5.1.1 Account disabled").
  // At RCPT a recipient domain that takes no mail leaves the address nowhere to receive (before "disabled").
  { class: 'no_such_user', codes: [5], text: NO_MAIL_DOMAIN_TEXT, stages: ['rcpt'] },
  // Said in the greeting it is the host's answer for every address (words about us came first).
  { class: 'no_such_user', codes: [5], text: HOST_TAKES_NO_MAIL_TEXT, stages: ['banner', 'ehlo'] },
  // A feature of the server or our account switched off is not the mailbox.
  { class: 'unclassified', codes: [5], text: SERVICE_OFF_TEXT },
  { class: 'unclassified', codes: [5], text: MAIL_LOOP_TEXT },
  { class: 'no_such_user', codes: [5], text: UNKNOWN_OR_DISABLED_TEXT },
  { class: 'disabled', codes: [5], text: DISABLED_TEXT },
  { class: 'no_such_user', codes: [5], text: NO_SUCH_USER_TEXT },
  // Codes that speak of the mailbox when the text says nothing decisive, as sisimai reads them: X.7.13 "user
  // account disabled"; X.7.17 (mailbox owner has changed) beside RFC 3463's bad, moved and null-MX addresses.
  // Not X.1.0 ("other address status": it may be the sender's) nor X.4.4 (unable to route: sisimai reads
  // Exchange's "SMTPSEND.DNS.NonExistentDomain" under it as a network error).
  { class: 'disabled', codes: [5], enhanced: ['5.2.1', '5.7.13'] },
  {
    class: 'no_such_user',
    codes: [5],
    enhanced: ['5.1.1', '5.1.10', '5.1.6', '5.1.3', '5.1.2', '5.7.17'],
  },
  // The recipient's own policy, with no word about us: neither the mailbox's absence nor a block of us.
  { class: 'unclassified', codes: [5], text: RECIPIENT_POLICY_TEXT },
  { class: 'unclassified', codes: [5], text: UNDELIVERABLE_TO_RECIPIENT_TEXT },
  // 5.7.x is security or policy: vaguer words about the mailbox do not outweigh it.
  { class: 'sender_blocked', codes: [5], enhanced: ['5.7.*'] },
  // The message or the mail system (X.3.x, X.6.x: size, content, SMTPUTF8) is refused, not the mailbox.
  { class: 'unclassified', codes: [5], enhanced: ['5.3.*', '5.6.*'], stages: ['mail', 'rcpt', 'data'] },
  // Weak words about the mailbox beside a denial of access or a request to come back say nothing of it.
  { class: 'unclassified', codes: [5], text: /\baccess denied\b|try again|temporar(?:il)?y|gr[ea]y ?list/i },
  // Only at RCPT: at end of DATA the recipient was already taken, and weak words there ("Mailbox unavailable")
  // are how a filter refuses the message.
  { class: 'no_such_user', codes: [5], text: WEAK_NO_SUCH_USER_TEXT, stages: ['rcpt'] },
  { class: 'sender_blocked', codes: [5], text: MESSAGE_REFUSED_TEXT, stages: ['data'] },
  // A bare no at RCPT, with nothing about us or the message before it, refuses the mailbox.
  { class: 'no_such_user', codes: [5], text: TERSE_REFUSAL_TEXT, stages: ['rcpt'] },
  // Mimecast greylists in the words of server trouble ("Internal resource(s) temporarily unavailable").
  {
    class: 'greylisted',
    codes: [4],
    text: /internal resources? (?:are |is )?temporarily unavailable/i,
    stages: ['mail', 'rcpt'],
  },
  { class: 'temporary', codes: [4], text: SERVER_TROUBLE_TEXT, stages: EVERY_STAGE },
  // RFC 3463 X.3.x is the receiving mail system's own status (full, not accepting messages, overloaded): its "try
  // again later" is its trouble, not greylisting, unless it says it deferred or refused the message for now.
  {
    class: 'temporary',
    codes: [4],
    enhanced: ['4.3.*'],
    text: /^(?!.*\btemporarily (?:rejected|deferred|refused|denied)\b)/i,
    stages: EVERY_STAGE,
  },
  // Greylisting defers one recipient and keeps the session; a server closing the connection is not greylisting.
  {
    class: 'temporary',
    codes: [4],
    text: /closing (?:the )?(?:connection|transmission channel)|(?:connection|channel) (?:will be |is being )?closed|fermeture de (?:la )?connexion|verbindung wird (?:geschlossen|getrennt)|cerrando (?:la )?conexi[óo]n/i,
    stages: ['mail', 'rcpt'],
  },
  // Greylisting is read from its words (in any language), not from a code: servers send 4.2.0, 4.7.0 and 4.7.1 for
  // any deferral ("Other or undefined mailbox status", "Recipient address rejected: Access denied").
  { class: 'greylisted', codes: [4], text: GREYLIST_TEXT, stages: ['mail', 'rcpt'] },
  { class: 'temporary', codes: [4] },
  { class: 'unclassified', codes: [5] },
];

function enhancedMatches(patterns: string[], code: string | null): boolean {
  if (!code) return false;
  return patterns.some((pattern) =>
    pattern.endsWith('.*') ? code.startsWith(pattern.slice(0, -1)) : code === pattern,
  );
}

/**
 * An address quoted in a reply: its words are the mailbox's name, not what the server says
 * ("<spam-reports@example.org>: User unknown" is not about spam). Read as a neutral address of the same shape.
 */
const QUOTED_ADDRESS = /[^\s<>()[\]"',;:]+@[^\s<>()[\]"',;:]+/g;

/**
 * Postfix's reject_unverified_recipient defers (450 by default) even when its probe of the next hop was refused
 * for good, and quotes that refusal: "unverified address: host mx[…] said: 550 5.1.1 … User unknown".
 */
const UNVERIFIED_QUOTE = /\bunverified address:.*?\bsaid: (5\d\d)[ -](.*?)(?: \(in reply to [^)]*\))?$/i;
/** What a quoted next-hop refusal may tell of the mailbox; anything else it says was said to the verifier, not us. */
const OF_THE_MAILBOX: ReplyClass[] = ['no_such_user', 'disabled', 'full'];

/** Classifies a reply received at `stage`; only replies to RCPT (or DATA) can speak of the mailbox. */
export function classifyReply(
  reply: Pick<SmtpReply, 'code' | 'enhancedCode' | 'message'>,
  stage: SmtpStage = 'rcpt',
): ReplyClass {
  const codeClass = Math.floor(reply.code / 100) as 2 | 3 | 4 | 5;
  if (codeClass === 2 || codeClass === 3) return 'accepted';
  const quoted = codeClass === 4 && stage === 'rcpt' ? UNVERIFIED_QUOTE.exec(reply.message) : null;
  if (quoted) {
    const next = classifyReply(buildReply([`${quoted[1]} ${quoted[2]}`]), stage);
    if (OF_THE_MAILBOX.includes(next)) return next;
  }
  const rcptError = codeClass === 5 && stage === 'data' ? RCPT_ERROR_QUOTE.exec(reply.message) : null;
  if (rcptError) {
    // The quote may carry its own code; if it says nothing decisive, the rules read the whole reply.
    const error = /^[245]\d\d[ -]/.test(rcptError[1]) ? rcptError[1] : `${reply.code} ${rcptError[1]}`;
    const next = classifyReply(buildReply([error]), 'rcpt');
    if (next !== 'unclassified') return next;
  }
  // Typographic apostrophes ("doesn’t") read as the plain one the patterns are written with.
  const message = reply.message.replace(/[\u2018\u2019]/g, "'").replace(QUOTED_ADDRESS, 'x@x.x');
  for (const rule of RULES) {
    if (!rule.codes.includes(codeClass)) continue;
    if (!(rule.stages ?? MAILBOX_STAGES).includes(stage)) continue;
    if (rule.replyCodes && !rule.replyCodes.includes(reply.code)) continue;
    if (rule.enhanced && !enhancedMatches(rule.enhanced, reply.enhancedCode)) continue;
    if (rule.text && !rule.text.test(message)) continue;
    return rule.class;
  }
  // Before RCPT, a refusal is about the session, never the mailbox.
  return codeClass === 4 ? 'temporary' : 'sender_blocked';
}
