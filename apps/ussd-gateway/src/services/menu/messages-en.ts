/**
 * English texts of every screen. Placeholders are `{name}`. Keep them plain GSM-7 (no smart quotes,
 * no emoji) and short: a screen is at most 178 characters after `CON `.
 */
export const en = {
  'nav.back': '0. Back',
  'nav.exit': '*. Exit',
  'nav.more': '98. More',
  'nav.skip': '00. Skip',
  'nav.mainMenu': '0. Main menu',

  'main.title': 'Welcome to {app}',
  'main.titleUser': 'Welcome, {name}',
  'main.knowMore': '1. Know More',
  'main.account': '2. Account',
  'main.myAccount': '2. My Account',
  'main.language': '3. Language/Lugha',
  'main.goodbye': 'Thank you for using {app}. Goodbye!',
  'session.expired': 'Your session has expired. Please dial again.',
  'error.invalidChoice': 'Invalid choice. Please pick a number from the menu.',

  'info.title': '{app} Information',
  'info.about': '1. About the service',
  'info.accounts': '2. Accounts and PINs',
  'info.security': '3. Staying safe',
  'info.aboutText': '{app} brings platform services to any phone, no internet needed. ' +
    'Dial the code, pick a number and follow the prompts. ' +
    'Send 0 to go back and * to return to the main menu.',
  'info.accountsText': 'Create an account with your name and a 5-digit PIN. ' +
    'You get a Customer ID: keep it, you need it with your PIN to log in from any phone. ' +
    'After 3 wrong PINs the account is locked for a while.',
  'info.securityText': 'We never ask for your PIN by SMS or by phone call. ' +
    'Your PIN is stored encrypted and no one can read it, not even our staff. ' +
    'Never share it, and choose one that is hard to guess.',

  'account.title': 'Account',
  'account.login': '1. Log in',
  'account.create': '2. Create account',
  'account.forgot': '3. Forgot Customer ID',

  'login.enterId': 'Enter your Customer ID (e.g. C1A2B3C4D):',
  'login.invalidId': 'Invalid Customer ID. It is C followed by 8 digits or letters A-F.',
  'login.notFound': 'Customer ID {id} was not found. Check it and try again.',
  'login.locked': 'Account {id} is locked after 3 incorrect PINs. Try again in {wait}, or contact support.',
  'login.enterPin': 'Enter your 5-digit PIN:',
  'login.pinFormat': 'PIN must be exactly 5 digits.',
  'login.wrongPin': 'Incorrect PIN ({n}/{max}). Please try again.',
  'login.lockedNow':
    'Incorrect PIN ({n}/{max}). Your account is now locked for {wait}. Try again then, or contact support.',
  'login.success': 'Login successful.',

  'create.enterName': 'Enter your full name:',
  'create.invalidName': 'Please enter a name of 2-40 letters (spaces, -, \' and . allowed).',
  'create.enterEmail': 'Enter your email address (optional):',
  'create.invalidEmail': 'Invalid email address. Try again, or send 00 to skip.',
  'create.enterPin': 'Create a 5-digit PIN:',
  'create.weakPin': 'That PIN is too easy to guess. Avoid repeated digits and runs like 12345.',
  'create.confirmPin': 'Confirm your 5-digit PIN:',
  'create.mismatch': 'PINs do not match. Please create your PIN again.',
  'create.done': 'Account created!\nYour Customer ID: {id}\nKeep it safe: you need it with your PIN to log in.',
  'create.continue': '1. My Account',
  'create.phoneTaken':
    'This phone number already has an account. Log in with your Customer ID. Forgot it? Choose 3 in the Account ' +
    'menu. {support}',
  'support.call': 'Or call support on {phone}.',
  'support.contact': 'Or contact support.',

  'forgot.enterPin': 'Enter your 5-digit PIN to see your Customer ID:',
  'forgot.noAccount': 'No account is registered to this phone number. Dial from the phone you signed up with, ' +
    'or create an account.',
  'forgot.locked': 'Your account is locked after 3 incorrect PINs. Try again in {wait}, or contact support.',
  'forgot.wrongPin': 'That PIN matches no account on this phone. After 3 incorrect PINs an account is locked.',
  'forgot.found': 'Your Customer ID: {id}\nKeep it safe: you need it with your PIN to log in.',
  'forgot.foundMany': 'Your Customer IDs: {ids}\nKeep them safe: you need one with its PIN to log in.',
  'forgot.smsSent': 'We also sent it to this phone by SMS.',
  'forgot.login': '1. Log in',

  'services.title': 'My Account ({id})',
  'services.details': '1. Account details',
  'services.changePin': '2. Change PIN',
  'services.language': '3. Language/Lugha',
  'services.logout': '4. Log out',
  'services.detailsText': 'Name: {name}\nCustomer ID: {id}\nPhone: {phone}\nEmail: {email}',
  'services.noEmail': 'not set',
  'services.loggedOut': 'You are logged out.',
  'services.sessionLocked': 'Your account was locked. Please log in again later, or contact support.',

  'pin.enterCurrent': 'Enter your current PIN:',
  'pin.enterNew': 'Enter a new 5-digit PIN:',
  'pin.confirmNew': 'Confirm your new PIN:',
  'pin.mismatch': 'PINs do not match. Please enter the new PIN again.',
  'pin.sameAsCurrent': 'The new PIN must differ from your current PIN.',
  'pin.sameAsPrevious': 'The new PIN must differ from your previous PIN.',
  'pin.busy': 'We are busy checking PINs. Please try again in a moment.',
  'services.pinReplaced': 'Your PIN was changed or reset since you logged in. Please log in again.',
  'pin.mustChange': 'Your PIN was reset. Choose a new PIN to continue.',
  'login.tempPinExpired': 'Your temporary PIN has expired. Please contact support for a new one.',
  'pin.changed': 'Your PIN was changed.',

  'language.title': 'Choose language / Chagua lugha:',
  'language.english': '1. English',
  'language.swahili': '2. Kiswahili',
  'language.saved': 'Language set to English.',

  'menu.myDomains': '{n}. My {many}',
  'menu.askAssistant': '{n}. Ask the assistant',
  'menu.registerStove': '{n}. Register a {one}',
  'menu.checkStove': '{n}. Check a {one}',

  'domains.title': 'My {many}',
  'domains.line': '{n}. {label} - {status}',
  'domains.none': 'You have no {many} registered yet.',
  'domains.newest': 'Your newest {n} are shown.',
  'domain.details': '{label}\nID: {did}\nStatus: {status}',
  'domain.about.draft': 'Waiting to be submitted for verification.',
  'domain.about.verification_submitted': 'Under review: the vote closes on {date}.',
  'domain.about.verified': 'Verified on {date}.',
  'domain.about.rejected': 'Verification was refused. Please contact your programme.',
  'domain.about.expired': 'Its validity ended on {date}.',
  'domain.about.deactivated': 'Deactivated on {date}.',
  'status.draft': 'pending',
  'status.verification_submitted': 'in review',
  'status.verified': 'verified',
  'status.rejected': 'rejected',
  'status.expired': 'expired',
  'status.deactivated': 'deactivated',

  'stove.enterSerial': 'Enter the {one} serial number:',
  'stove.invalidSerial': 'A serial number has 3-40 letters, digits, -, . or /.',
  'check.notFound': 'No {one} is registered under serial {serial}.',
  'register.duplicate': 'Serial {serial} is already registered.',
  'register.enterHousehold': 'Enter the household\'s Customer ID or phone number (with country code):',
  'register.invalidHousehold': 'Enter a Customer ID (e.g. C1A2B3C4D) or a phone number with its country code.',
  'register.householdNotFound': 'No account has that Customer ID or phone number.',
  'register.manyAccounts': 'That phone number has several accounts. Please enter the Customer ID.',
  'register.noIdentity': 'That household must log in once before a {one} can be registered for it.',
  'register.confirm': 'Register {one} {serial} for {name} ({id})?',
  'register.confirmOption': '1. Confirm',
  'register.done': 'Registered {one} {serial}.\nID: {did}\nStatus: pending verification.',
  'register.another': '1. Register another',
  'register.notAllowed': 'You cannot register {many} yet. Please ask your programme to enable you.',

  'ask.enter': 'Type your question (up to {n} characters):',
  'ask.tooShort': 'Please type a question.',
  'ask.tooLong': 'Please keep your question to {n} characters.',
  'ask.noRoom': 'This session has no room left for a question. Please dial again.',
  'ask.preparing': 'Your answer is being prepared.',
  'ask.check': '1. Check',
  'ask.stillPreparing': 'Not ready yet. Please check again in a moment.',
  'ask.lost': 'Your answer could not be fetched. Please ask again.',
  'ask.busy': 'Your previous question is still being answered. Please try again in a moment.',
  'ask.refused': 'The assistant cannot take your question right now.',
  'ask.unavailable': 'The assistant is unavailable right now. Please try again later.',
  'ask.followUp': '1. Ask a follow-up',
  'ask.empty': 'The assistant gave no answer. Please ask again.',

  'platform.unavailable': 'Service unavailable right now. Please try again later.',
  'platform.refused': 'The request was refused. Please try again later or contact support.',
  'platform.keyUnavailable': 'We cannot act for your account right now. Please contact support.',

  'time.minute': '1 minute',
  'time.minutes': '{n} minutes',
  'time.hours': '{n} hours'
} as const

export type MessageKey = keyof typeof en
