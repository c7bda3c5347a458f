import type { MessageKey } from './messages-en.ts'

/** Kiswahili texts; the type makes a missing key a compile error. */
export const sw: Record<MessageKey, string> = {
  'nav.back': '0. Rudi',
  'nav.exit': '*. Toka',
  'nav.more': '98. Zaidi',
  'nav.skip': '00. Ruka',
  'nav.mainMenu': '0. Menyu kuu',

  'main.title': 'Karibu {app}',
  'main.titleUser': 'Karibu, {name}',
  'main.knowMore': '1. Fahamu Zaidi',
  'main.account': '2. Akaunti',
  'main.myAccount': '2. Akaunti Yangu',
  'main.language': '3. Lugha/Language',
  'main.goodbye': 'Asante kwa kutumia {app}. Kwaheri!',
  'session.expired': 'Muda wa kipindi chako umekwisha. Tafadhali piga tena.',
  'error.invalidChoice': 'Chaguo si sahihi. Tafadhali chagua namba kwenye menyu.',

  'info.title': 'Taarifa za {app}',
  'info.about': '1. Kuhusu huduma',
  'info.accounts': '2. Akaunti na PIN',
  'info.security': '3. Usalama wako',
  'info.aboutText': '{app} inaleta huduma kwa simu yoyote bila intaneti. ' +
    'Piga namba ya huduma, chagua namba na ufuate maelekezo. ' +
    'Tuma 0 kurudi nyuma na * kurudi kwenye menyu kuu.',
  'info.accountsText': 'Fungua akaunti kwa jina lako na PIN ya tarakimu 5. ' +
    'Utapata Namba ya Mteja: itunze, utaihitaji pamoja na PIN kuingia kwa simu yoyote. ' +
    'Baada ya PIN zisizo sahihi mara 3 akaunti hufungwa kwa muda.',
  'info.securityText': 'Hatutawahi kukuomba PIN kwa SMS au kwa simu. ' +
    'PIN yako imehifadhiwa kwa usimbaji fiche na hakuna anayeweza kuisoma, hata wafanyakazi wetu. ' +
    'Usiitoe kwa mtu, na chagua iliyo ngumu kukisia.',

  'account.title': 'Akaunti',
  'account.login': '1. Ingia',
  'account.create': '2. Fungua akaunti',
  'account.forgot': '3. Umesahau Namba ya Mteja',

  'login.enterId': 'Weka Namba yako ya Mteja (mfano C1A2B3C4D):',
  'login.invalidId': 'Namba ya Mteja si sahihi. Ni C ikifuatiwa na tarakimu au herufi A-F, jumla 8.',
  'login.notFound': 'Namba ya Mteja {id} haikupatikana. Iangalie na ujaribu tena.',
  'login.locked': 'Akaunti {id} imefungwa baada ya PIN zisizo sahihi mara 3. Jaribu tena baada ya {wait}, ' +
    'au wasiliana na huduma kwa wateja.',
  'login.enterPin': 'Weka PIN yako ya tarakimu 5:',
  'login.pinFormat': 'PIN lazima iwe tarakimu 5 kamili.',
  'login.wrongPin': 'PIN si sahihi ({n}/{max}). Tafadhali jaribu tena.',
  'login.lockedNow': 'PIN si sahihi ({n}/{max}). Akaunti yako imefungwa kwa {wait}. Jaribu tena baadaye, ' +
    'au wasiliana na huduma kwa wateja.',
  'login.success': 'Umeingia kikamilifu.',

  'create.enterName': 'Weka jina lako kamili:',
  'create.invalidName': 'Tafadhali weka jina la herufi 2-40 (nafasi, -, \' na . zinaruhusiwa).',
  'create.enterEmail': 'Weka barua pepe yako (si lazima):',
  'create.invalidEmail': 'Barua pepe si sahihi. Jaribu tena, au tuma 00 kuruka.',
  'create.enterPin': 'Tengeneza PIN ya tarakimu 5:',
  'create.weakPin': 'PIN hiyo ni rahisi kukisia. Epuka tarakimu zinazojirudia na mfuatano kama 12345.',
  'create.confirmPin': 'Thibitisha PIN yako ya tarakimu 5:',
  'create.mismatch': 'PIN hazilingani. Tafadhali tengeneza PIN yako upya.',
  'create.done': 'Akaunti imefunguliwa!\nNamba yako ya Mteja: {id}\nIhifadhi: utaihitaji pamoja na PIN kuingia.',
  'create.continue': '1. Akaunti Yangu',
  'create.phoneTaken': 'Namba hii ya simu tayari ina akaunti. Ingia kwa Namba yako ya Mteja. Umeisahau? ' +
    'Chagua 3 kwenye menyu ya Akaunti. {support}',
  'support.call': 'Au piga simu kwa huduma kwa wateja {phone}.',
  'support.contact': 'Au wasiliana na huduma kwa wateja.',

  'forgot.enterPin': 'Weka PIN yako ya tarakimu 5 kuona Namba yako ya Mteja:',
  'forgot.noAccount': 'Hakuna akaunti iliyosajiliwa kwa namba hii ya simu. Piga kutoka simu uliyojisajili nayo, ' +
    'au fungua akaunti.',
  'forgot.locked': 'Akaunti yako imefungwa baada ya PIN zisizo sahihi mara 3. Jaribu tena baada ya {wait}, ' +
    'au wasiliana na huduma kwa wateja.',
  'forgot.wrongPin': 'PIN hiyo hailingani na akaunti yoyote ya simu hii. Baada ya PIN zisizo sahihi mara 3 ' +
    'akaunti hufungwa.',
  'forgot.found': 'Namba yako ya Mteja: {id}\nIhifadhi: utaihitaji pamoja na PIN kuingia.',
  'forgot.foundMany': 'Namba zako za Mteja: {ids}\nZihifadhi: utahitaji moja pamoja na PIN yake kuingia.',
  'forgot.smsSent': 'Tumeituma pia kwa SMS kwenye simu hii.',
  'forgot.login': '1. Ingia',

  'services.title': 'Akaunti Yangu ({id})',
  'services.details': '1. Taarifa za akaunti',
  'services.changePin': '2. Badilisha PIN',
  'services.language': '3. Lugha/Language',
  'services.logout': '4. Toka kwenye akaunti',
  'services.detailsText': 'Jina: {name}\nNamba ya Mteja: {id}\nSimu: {phone}\nBarua pepe: {email}',
  'services.noEmail': 'haijawekwa',
  'services.loggedOut': 'Umetoka kwenye akaunti.',
  'services.sessionLocked': 'Akaunti yako imefungwa. Tafadhali ingia tena baadaye, au wasiliana na huduma kwa wateja.',

  'pin.enterCurrent': 'Weka PIN yako ya sasa:',
  'pin.enterNew': 'Weka PIN mpya ya tarakimu 5:',
  'pin.confirmNew': 'Thibitisha PIN yako mpya:',
  'pin.mismatch': 'PIN hazilingani. Tafadhali weka PIN mpya tena.',
  'pin.sameAsCurrent': 'PIN mpya lazima iwe tofauti na PIN yako ya sasa.',
  'pin.sameAsPrevious': 'PIN mpya lazima iwe tofauti na PIN yako ya awali.',
  'pin.busy': 'Tuna shughuli nyingi za kukagua PIN. Tafadhali jaribu tena baada ya muda mfupi.',
  'services.pinReplaced': 'PIN yako imebadilishwa au kuwekwa upya tangu uingie. Tafadhali ingia tena.',
  'pin.mustChange': 'PIN yako imewekwa upya. Chagua PIN mpya ili kuendelea.',
  'login.tempPinExpired': 'PIN yako ya muda imekwisha. Tafadhali wasiliana na huduma kwa wateja upate nyingine.',
  'pin.changed': 'PIN yako imebadilishwa.',

  'language.title': 'Chagua lugha / Choose language:',
  'language.english': '1. English',
  'language.swahili': '2. Kiswahili',
  'language.saved': 'Lugha imewekwa: Kiswahili.',

  'menu.myDomains': '{n}. Orodha ya {many}',
  'menu.askAssistant': '{n}. Uliza msaidizi',
  'menu.registerStove': '{n}. Sajili {one}',
  'menu.checkStove': '{n}. Kagua {one}',

  'domains.title': 'Orodha ya {many}',
  'domains.line': '{n}. {label} - {status}',
  'domains.none': 'Bado hakuna {many} kwenye akaunti yako.',
  'domains.newest': 'Zinaonyeshwa {n} za karibuni.',
  'domain.details': '{label}\nID: {did}\nHali: {status}',
  'domain.about.draft': 'Inasubiri kuwasilishwa kwa uthibitisho.',
  'domain.about.verification_submitted': 'Inakaguliwa: kura inafungwa tarehe {date}.',
  'domain.about.verified': 'Imethibitishwa tarehe {date}.',
  'domain.about.changed': 'Ilibadilishwa baada ya kuthibitishwa: inahitaji ukaguzi mpya.',
  'domain.about.rejected': 'Uthibitisho ulikataliwa. Tafadhali wasiliana na mpango wako.',
  'domain.about.revoked': 'Uthibitisho wake uliondolewa. Tafadhali wasiliana na mpango wako.',
  'domain.about.expired': 'Muda wake uliisha tarehe {date}.',
  'domain.about.deactivated': 'Ilizimwa tarehe {date}.',
  'status.draft': 'inasubiri',
  'status.verification_submitted': 'inakaguliwa',
  'status.verified': 'imethibitishwa',
  'status.changed': 'imebadilishwa',
  'status.rejected': 'imekataliwa',
  'status.revoked': 'imeondolewa',
  'status.expired': 'imeisha muda',
  'status.deactivated': 'imezimwa',

  'stove.enterSerial': 'Weka namba ya mfululizo ya {one}:',
  'stove.invalidSerial': 'Namba ya mfululizo ina herufi au tarakimu 3-40, pamoja na -, . au /.',
  'check.notFound': 'Hakuna {one} iliyosajiliwa kwa namba {serial}.',
  'register.duplicate': 'Namba {serial} tayari imesajiliwa.',
  'register.enterHousehold': 'Weka Namba ya Mteja au namba ya simu ya kaya (pamoja na msimbo wa nchi):',
  'register.invalidHousehold': 'Weka Namba ya Mteja (mfano C1A2B3C4D) au namba ya simu pamoja na msimbo wa nchi.',
  'register.householdNotFound': 'Hakuna akaunti yenye Namba ya Mteja au namba hiyo ya simu.',
  'register.manyAccounts': 'Namba hiyo ya simu ina akaunti kadhaa. Tafadhali weka Namba ya Mteja.',
  'register.noIdentity': 'Kaya hiyo lazima iingie mara moja kabla ya kusajiliwa {one}.',
  'register.confirm': 'Sajili {one} {serial} kwa {name} ({id})?',
  'register.confirmOption': '1. Thibitisha',
  'register.done': 'Umesajili {one} {serial}.\nID: {did}\nHali: inasubiri uthibitisho.',
  'register.another': '1. Sajili nyingine',
  'register.notAllowed': 'Bado huwezi kusajili {many}. Tafadhali omba mpango wako ukuwezeshe.',

  'ask.enter': 'Andika swali lako (hadi herufi {n}):',
  'ask.tooShort': 'Tafadhali andika swali.',
  'ask.tooLong': 'Tafadhali swali lisizidi herufi {n}.',
  'ask.noRoom': 'Kipindi hiki hakina nafasi ya swali jingine. Tafadhali piga tena.',
  'ask.preparing': 'Jibu lako linaandaliwa.',
  'ask.check': '1. Angalia',
  'ask.stillPreparing': 'Bado halijawa tayari. Tafadhali angalia tena baada ya muda mfupi.',
  'ask.lost': 'Jibu lako halikupatikana. Tafadhali uliza tena.',
  'ask.busy': 'Swali lako la awali bado linajibiwa. Tafadhali jaribu tena baada ya muda mfupi.',
  'ask.refused': 'Msaidizi hawezi kupokea swali lako kwa sasa.',
  'ask.unavailable': 'Msaidizi hapatikani kwa sasa. Tafadhali jaribu tena baadaye.',
  'ask.followUp': '1. Uliza swali jingine',
  'ask.empty': 'Msaidizi hakutoa jibu. Tafadhali uliza tena.',

  'platform.unavailable': 'Huduma haipatikani kwa sasa. Tafadhali jaribu tena baadaye.',
  'platform.refused': 'Ombi limekataliwa. Tafadhali jaribu tena baadaye au wasiliana na huduma kwa wateja.',
  'platform.keyUnavailable': 'Hatuwezi kutumia akaunti yako kwa sasa. Tafadhali wasiliana na huduma kwa wateja.',

  'time.minute': 'dakika 1',
  'time.minutes': 'dakika {n}',
  'time.hours': 'saa {n}'
}
