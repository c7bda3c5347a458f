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
  'create.phoneTaken': 'Namba hii ya simu tayari ina akaunti. Tafadhali ingia kwa Namba yako ya Mteja. {support}',
  'support.call': 'Umeisahau? Piga simu kwa huduma kwa wateja {phone}.',
  'support.contact': 'Umeisahau? Tafadhali wasiliana na huduma kwa wateja.',

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

  'time.minute': 'dakika 1',
  'time.minutes': 'dakika {n}',
  'time.hours': 'saa {n}'
}
