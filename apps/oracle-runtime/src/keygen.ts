import { formatSigner, generateSigner } from '@impact/ucan'

// Prints a fresh oracle identity: the ORACLE_PRIVATE_KEY value (keep it secret) and its DID.
const signer = await generateSigner()
process.stdout.write(`ORACLE_PRIVATE_KEY=${formatSigner(signer)}\n# DID: ${signer.did()}\n`)
